"""Tests of the ``guandan engine`` line protocol (guandan_core.protocol, docs/PROTOCOL.md):
``EngineProtocol.handle`` / ``serve`` in process, and a real ``guandan engine`` subprocess
driven through its stdin/stdout."""

import io
import json
import queue
import re
import select
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest

import guandan_core
from cli_process import PACKAGES, ROOT, cli_env, cpu_seconds, soon
from guandan_core.position import Position
from guandan_core import protocol
from guandan_core.protocol import EngineProtocol
from guandan_core.rules import Rules


# seat 0 leads with A, 3, 3; seat 2 is out; a tiny endgame (solves in well under 1 ms)
LEAD = {"level": "2", "hands": [["S3", "S3", "SA"], ["S4", "H5"], [], ["S6"]],
        "finished": [2], "to_move": 0, "table": None}
# seat 3 follows seat 1's single A
FOLLOW = {"level": "7", "hands": [["S3", "S4"], ["HR"], [], ["D9", "D9"]],
          "finished": [2], "to_move": 3, "table": {"owner": 1, "play": ["Single", "A", ["SA"]]}}
# six cards each, nobody out: a few hundred thousand nodes at most, used with limits
BIG = {"level": "Q",
       "hands": [["C5", "D6", "H7", "C7", "C8", "D9"], ["D4", "S6", "C8", "D8", "HJ", "DQ"],
                 ["C2", "D5", "C9", "D9", "DJ", "SK"], ["H8", "CJ", "DJ", "SQ", "CQ", "SK"]],
       "finished": [], "to_move": 0, "table": None}
PASS = ["PASS", "PASS", "PASS"]
VOLATILE = ("nodes", "tt_hits", "seconds")


def pos_line(obj) -> str:
    return "position " + json.dumps(obj)


def ok(reply: str, ident: str = "") -> str:
    """The payload of a success reply (asserting the framing)."""
    assert reply.endswith("\n\n"), reply
    head = "=" + ident
    assert reply == head + "\n\n" or reply.startswith(head + " "), reply
    return reply[len(head) + 1:-2] if reply != head + "\n\n" else ""


def fail(reply: str, ident: str = "") -> str:
    assert reply.endswith("\n\n"), reply
    assert reply.startswith("?" + ident + " "), reply
    reason = reply[len(ident) + 2:-2]
    assert reason and "\n" not in reason and "Traceback" not in reason
    return reason


def parse_info(line: str) -> dict:
    """``info KEY VALUE KEY VALUE ...`` with compact JSON values -> dict."""
    parts = line.split(" ")
    assert parts[0] == "info" and len(parts) % 2 == 1, line
    return {parts[i]: json.loads(parts[i + 1]) for i in range(1, len(parts), 2)}


def stages(infos: list) -> list:
    """The info lines after the ``bound`` lines streamed during the search, which are
    checked here: they come first, each narrows the last, and the last one is the
    value line's bounds."""
    bounds = [i for i in infos if "bound" in i]
    rest = [i for i in infos if "bound" not in i]
    assert infos[:len(bounds)] == bounds, "bound lines come before the others"
    lo, hi = -3, 3
    for b in bounds:
        assert lo <= b["lower"] <= b["upper"] <= hi, bounds
        lo, hi = b["lower"], b["upper"]
    if bounds and rest and "value" in rest[0]:
        assert (rest[0]["lower"], rest[0]["upper"]) == (lo, hi)
    return rest


def split_solve_reply(reply: str, ident: str = ""):
    """(info lines after the bound lines, final JSON text) of a solve reply."""
    lines = reply[:-2].split("\n")
    infos = [parse_info(x) for x in lines[:-1]]
    final = lines[-1]
    head = "=" + ident + " "
    assert final.startswith(head), reply
    return stages(infos), final[len(head):]


def without_volatile(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k not in VOLATILE}


@pytest.fixture
def engine():
    return EngineProtocol()


# ---------------------------------------------------------------------- framing

def test_identity_commands(engine):
    assert engine.handle("protocol_version") == "= 1\n\n"
    assert engine.handle("name") == "= guandan-core\n\n"
    assert engine.handle("version") == f"= {guandan_core.__version__}\n\n"


def test_ids_are_echoed(engine):
    assert engine.handle("12 name") == "=12 guandan-core\n\n"
    assert engine.handle("  7   protocol_version  ") == "=7 1\n\n"
    assert fail(engine.handle("3 frobnicate"), "3").startswith("unknown command")
    assert fail(engine.handle("4 moves"), "4").startswith("no position")
    assert fail(engine.handle("5"), "5") == "missing command after the id"
    assert engine.handle("6 quit") == "=6\n\n"


def test_ignored_lines(engine):
    for line in ("", "\n", "   \n", "# a comment", "  # indented comment\n", "\r\n"):
        assert engine.handle(line) == ""


def test_crlf_and_tabs(engine):
    assert engine.handle("9\tname\r\n") == "=9 guandan-core\n\n"


def test_a_run_of_blanks_separates_the_command_from_its_argument(engine):
    """PROTOCOL.md, Framing: spaces and tabs separate words, so several of them between the
    command and its one argument separate them as one space does (they are not read as
    part of the argument, which `known_command` and `rules` would refuse as two words)."""
    assert engine.handle("known_command  \t name") == "= true\n\n"
    assert engine.handle("4 rules \t  platform") == "=4\n\n"
    assert engine.handle("rules") == "= platform\n\n"


def test_list_commands(engine):
    payload = ok(engine.handle("list_commands"))
    names = payload.split("\n")
    for name in ("protocol_version", "name", "version", "list_commands", "rules", "position",
                 "moves", "play", "solve", "analyze", "showposition", "quit"):
        assert name in names
    assert all(n.strip() == n and n for n in names)
    for name in names:
        assert engine.handle(f"known_command {name}") == "= true\n\n"
    assert engine.handle("known_command fly") == "= false\n\n"


def test_engine_help_names_every_command(engine, capsys):
    """`guandan engine --help` lists the commands list_commands gives, in its order."""
    from guandan_core.cli import main
    assert main(["engine", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    names = ok(engine.handle("list_commands")).split("\n")
    assert "sample" in names and f"Commands: {', '.join(names)}." in text


def test_bad_input_never_stops_the_engine(engine):
    bad = ["fly", "name extra", "rules nosuch", "position", "position {", "position []",
           "position " + "[" * 100_000,
           'position {"level": "2"}', "moves", "play", "showposition", "undo", "solve",
           "analyze", 'analyze "S3', "analyze SX level=2", "analyze S3 level=Z",
           'position {"level": "X", "level": "2", "hands": [[], [], [], []]}', "analyze  ",
           "analyze S3 color=red", "\x00\x01", "\ufffd\ufffd"]
    for line in bad:
        fail(engine.handle(line))
    engine.handle(pos_line(LEAD))
    bad = ["play {", "play 5", "play []", 'play ["Single"]', 'play ["Single","A","SA"]',
           'play ["Single","A",[null]]', 'play ["Bogus","A",["SA"]]', 'play ["PASS","PASS",5]',
           "play PASS", 'play ["Single","K",["SA"]]', 'play ["Single","2",["H2"]]',
           "solve time=-1", "solve time=x", "solve nodes=-1", "solve nodes=1.5", "solve deep",
           "solve nodes=99999999999999999999999", "play " + "[" * 100_000,
           "solve nodes=5 nodes=6", "solve all all", "solve at_least=0", "solve at_least=x",
           "solve at_least=1 at_least=2", "analyze S3 level=7 level=8",
           "analyze S3 S3 S3", "analyze S3 runners_up=x", 'analyze S3 played="S3 S3"',
           # digits other than 0-9 pass str.isdigit() but are not counts
           "solve nodes=\u0663", "solve nodes=\u00b2", "analyze S3 runners_up=\u00b2",
           # wrong JSON types in an action are refused, not read loosely
           'play ["PASS","PASS",{}]', 'play ["PASS","PASS",""]', 'play ["Single",3,["S3"]]',
           'play ["Single","3",{"S3":1}]', 'play [["Single"],"3",["S3"]]']
    for line in bad:
        fail(engine.handle(line))
    assert engine.position.to_json() == LEAD          # nothing changed
    assert engine.handle("name") == "= guandan-core\n\n"
    # an option's bad value is named with its command, the level's as the others'
    assert fail(engine.handle("analyze S3 level=1")) == \
        "analyze: level must be a rank from 2 to A, not '1'"


def test_refusals_quote_what_they_refuse(engine):
    """Found by a helper driving the engine: reasons that did not name the bad value, a
    lenient number or pass reading, and Python's own int() message for 5,000 digits."""
    for line, words in (("name x", "name takes no arguments, not 'x'"),
                        ("undo 1 2", "undo takes no arguments, not '1 2'"),
                        ("known_command a b", "not 'a b'"),
                        ("rules a b", "not 'a b'"),
                        ("solve nodes=" + "9" * 5000, "from 0 to 9,223,372,036,854,775,807"),
                        ("analyze S3 runners_up=" + "9" * 5000, "at most 18 digits"),
                        ("solve time=1_0", "not '1_0'"), ("solve time=\u0661", "not '\u0661'"),
                        ("solve time=\uff11", "not '\uff11'"), ("solve time=inf", "not 'inf'")):
        reason = fail(engine.handle(line))
        assert words in reason and "sys.set_int_max_str_digits" not in reason, reason
    engine.handle(pos_line(FOLLOW))
    assert "no cards is not a Single of rank 'B'" in fail(engine.handle('play ["Single","B",[]]'))
    for line in ("play pa\u00df", "play pa\u017f\u017f"):     # .upper() of both is "PASS"
        fail(engine.handle(line))
    assert engine.position.to_json() == FOLLOW
    assert json.loads(ok(engine.handle("play pass")))["to_move"] == 0
    engine.handle(pos_line(LEAD))
    assert json.loads(split_solve_reply(engine.handle("solve time=5e0"))[1])["exact"] is True


def test_a_long_refusal_is_shortened_to_one_message(engine):
    """A bad value can be as long as a line (MAX_LINE characters): the `?` reason keeps its
    start and end, says how long the full text was and fits usertext.MAX_MESSAGE
    characters (usertext.one_line), whether the command refuses it (an option's value, an
    unknown command) or the library does (a position's level)."""
    from guandan_core.usertext import MAX_MESSAGE
    long = "9" * 50_000
    for line, start, end in (
            ("solve nodes=" + long, "solve: nodes must be a whole number from 0 to", "999'"),
            ("analyze S3 runners_up=" + long, "analyze: runners_up must be", "999'"),
            ("x" + long, "unknown command 'x999", "999' (see list_commands)"),
            (pos_line(dict(LEAD, level=long)), "", "")):
        reason = fail(engine.handle("8 " + line), "8")
        shown = re.fullmatch(r"(.+)\.\.\.(.+) \(([0-9,]+) characters\)", reason)
        assert shown and len(reason) <= MAX_MESSAGE, reason[:100]
        assert shown[1].startswith(start) and shown[2].endswith(end), reason
        assert int(shown[3].replace(",", "")) > len(long)


def test_unknown_position_keys_are_quoted_and_printable(engine):
    """A key with a lone surrogate went into the reason as it was, and writing it as
    UTF-8 ended the engine (exit 2); a NUL or ESC went out raw; "a, b" read as two keys."""
    base = json.dumps(LEAD)[:-1]
    for key, shown in (("\ud800", "'\\ud800'"), ("x\u0000y", "'x\\x00y'"),
                       ("e\u001b[31m", "'e\\x1b[31m'"), ("a, b", "'a, b'")):
        line = "position " + base + ", " + json.dumps(key) + ": 1}"
        reason = fail(engine.handle(line))
        assert "unknown key(s): " + shown in reason, reason
        assert reason.isprintable()
        reason.encode("utf-8")                      # strict: what the engine's output does
    assert engine.position is None


def test_only_ascii_blanks_separate_words():
    """A no-break space is part of the word it touches (it read "1\u00a0name" as id 1 and
    the command name); a byte order mark at the start of the input is skipped."""
    engine = EngineProtocol()
    assert "unknown command '1\\xa0name'" in fail(engine.handle("1\u00a0name"))
    assert "unknown command" in fail(engine.handle("\u00a0name"))
    out = io.StringIO()
    assert engine.serve(io.StringIO("\ufeff1 name\n2 name\n"), out) == 0
    assert out.getvalue() == "=1 guandan-core\n\n=2 guandan-core\n\n"


def test_internal_error_is_reported(engine, monkeypatch):
    def boom(args, info):
        raise RuntimeError("kaput")
    monkeypatch.setitem(engine._commands, "moves", boom)
    reason = fail(engine.handle("3 moves"), "3")
    assert "internal error" in reason and "kaput" in reason
    assert engine.handle("name") == "= guandan-core\n\n"


def test_arguments_split_as_shlex_splits_them():
    """split_words is shlex.split (POSIX quoting, the same errors) on every short text of
    blanks, quotes, backslashes and letters, in linear time (shlex's is quadratic in a
    word's length: a megabyte-long hand took 8 seconds)."""
    import random
    import shlex
    from guandan_core.protocol import split_words
    rng = random.Random(38)
    alphabet = ["a", "S3", " ", "\t", "'", '"', "\\", "\u00a0", "\r", "\n", "é", "="]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        try:
            want = shlex.split(text)
        except ValueError as exc:
            with pytest.raises(ValueError, match=f"^{exc}$"):
                split_words(text)
        else:
            assert split_words(text) == want, text
    # linear: a megabyte-long word (shlex's way about 15 s here; this one's about 5 ms, so
    # the bound leaves a machine hundreds of times slower room)
    import time
    word = "S3," * 350_000
    start = time.perf_counter()
    assert split_words(f"analyze '{word}' level=2") == ["analyze", word, "level=2"]
    assert time.perf_counter() - start < 3


# ---------------------------------------------------------------------- positions

def test_position_and_showposition(engine):
    assert fail(engine.handle("showposition")).startswith("no position")
    summary = ok(engine.handle(pos_line(FOLLOW)))
    assert summary.startswith("to_move 3")
    assert json.loads(ok(engine.handle("showposition"))) == FOLLOW


def test_position_errors_name_the_problem(engine):
    reason = fail(engine.handle("position {\"level\": \"2\""))
    assert "JSON" in reason
    bad = dict(LEAD, hands=[["SA", "SX"], ["S4", "H5"], [], ["S6"]])
    assert "SX" in fail(engine.handle(pos_line(bad)))
    bad = dict(LEAD, to_move=2)
    assert "seat" in fail(engine.handle(pos_line(bad)))
    # valid JSON that is not an object is named by its type, not read as JSON text again
    assert fail(engine.handle('position "S3"')).endswith("a position is a JSON object, not a string")


def test_moves_pass_first_when_following(engine):
    engine.handle(pos_line(FOLLOW))
    moves = json.loads(ok(engine.handle("moves")))
    assert moves[0] == PASS
    expected = [m.to_platform() for m in Position.from_json(FOLLOW).legal_moves()]
    assert moves == expected
    assert ["Single", "R", ["HR"]] not in moves             # not seat 3's card
    engine.handle(pos_line(LEAD))
    moves = json.loads(ok(engine.handle("moves")))
    assert PASS not in moves
    assert moves == [m.to_platform() for m in Position.from_json(LEAD).legal_moves()]


def test_play_and_undo(engine):
    engine.handle(pos_line(LEAD))
    after = json.loads(ok(engine.handle('play ["Single","3",["S3"]]')))
    pos = Position.from_json(LEAD)
    expected = pos.play(pos.legal_moves()[0]).to_json()
    assert after == expected
    assert json.loads(ok(engine.handle("showposition"))) == expected
    after_pass = json.loads(ok(engine.handle("play PASS")))
    assert after_pass["to_move"] == 3
    again = json.loads(ok(engine.handle(f"play {json.dumps(PASS)}")))
    assert again["to_move"] == 0 and again["table"] is None     # everyone passed: 0 leads
    assert json.loads(ok(engine.handle("undo"))) == after_pass
    assert json.loads(ok(engine.handle("undo"))) == expected
    assert json.loads(ok(engine.handle("undo"))) == LEAD
    assert fail(engine.handle("undo")).startswith("nothing to undo")


def test_illegal_plays(engine):
    engine.handle(pos_line(FOLLOW))
    # not held, does not beat, and not a combination
    assert "does not hold" in fail(engine.handle('play ["Single","R",["HR"]]'))
    assert "does not beat" in fail(engine.handle('play ["Pair","9",["D9","D9"]]'))
    assert "not a" in fail(engine.handle('play ["Pair","9",["D9","S3"]]'))
    # a triple that is no move is named for what is wrong with it: a pass in lower case
    # (only the shorthand is read in any case) is an unknown type, not cards that are no list
    assert 'unknown move type "pass"' in fail(engine.handle('play ["pass","pass","pass"]'))
    assert 'cards must be a list of card strings, not "S9"' in fail(
        engine.handle('play ["Single","9","S9"]'))
    engine.handle(pos_line(LEAD))
    assert "may not pass" in fail(engine.handle("play PASS"))
    assert json.loads(ok(engine.handle("showposition"))) == LEAD


def test_play_to_the_end_of_the_hand(engine):
    engine.handle(pos_line({"level": "2", "hands": [["SA"], ["S3"], [], ["S4"]],
                            "finished": [2], "to_move": 0, "table": None}))
    end = json.loads(ok(engine.handle('play ["Single","A",["SA"]]')))
    assert end["finished"] == [2, 0] and end["to_move"] is None
    assert ok(engine.handle("moves")) == "[]"
    assert "over" in fail(engine.handle("solve"))
    assert "over" in fail(engine.handle("play PASS"))


def test_a_finished_position_is_accepted_and_summarised(engine):
    """PROTOCOL.md, position: a hand already over is read (to_move null); its summary gives
    the finishing order and the outcome for seats 0 and 2 (RULES sec. 6), and nothing can be
    played or solved in it."""
    over = {"level": "7", "hands": [[], ["HR"], [], ["D9"]], "finished": [0, 2],
            "to_move": None, "table": None}
    assert ok(engine.handle(pos_line(over))) == "over true finished [0,2] outcome 3"
    lost = dict(over, hands=[["S3"], [], ["D9"], []], finished=[1, 3])
    assert ok(engine.handle(pos_line(lost))) == "over true finished [1,3] outcome -3"
    assert json.loads(ok(engine.handle("showposition"))) == lost
    assert ok(engine.handle("moves")) == "[]"
    for command in ("solve", "solve all", "play PASS", 'play ["Single","3",["S3"]]'):
        assert "over" in fail(engine.handle(command)), command


def test_rules_apply_to_later_positions(engine):
    hand = {"level": "2", "hands": [["H2", "S3", "S4", "S5", "S6"], ["S7"], [], ["S8"]],
            "finished": [2], "to_move": 0, "table": None}
    assert ok(engine.handle("rules")) == "standard"
    engine.handle(pos_line(hand))
    standard = json.loads(ok(engine.handle("moves")))
    assert any(m[0] == "StraightFlush" for m in standard)
    assert engine.handle("rules platform") == "=\n\n"
    assert ok(engine.handle("rules")) == "platform"
    assert json.loads(ok(engine.handle("moves"))) == standard      # current one unchanged
    engine.handle(pos_line(hand))
    platform = json.loads(ok(engine.handle("moves")))
    assert not any(m[0] == "StraightFlush" for m in platform)
    assert engine.position.rules == Rules.platform()
    assert "unknown rules" in fail(engine.handle("rules casual"))
    assert ok(engine.handle("rules")) == "platform"


def test_engine_rules_argument():
    assert EngineProtocol("platform").rules == Rules.platform()
    assert EngineProtocol(Rules.platform()).rules == Rules.platform()


# ---------------------------------------------------------------------- solve

def test_solve_matches_the_solver(engine):
    from solver import solve
    engine.handle(pos_line(LEAD))
    infos, final = split_solve_reply(engine.handle("4 solve"), "4")
    expected = solve(LEAD).to_json()
    got = json.loads(final)
    assert list(got) == list(expected)                  # same keys, same order
    assert without_volatile(got) == without_volatile(expected)
    assert final == json.dumps(got)                     # exactly json.dumps of the object
    assert [list(i)[0] for i in infos] == ["value", "best"]
    assert infos[0]["value"] == got["value"] == 3 and infos[0]["exact"] is True
    assert infos[1]["best"] == got["best"] and infos[1]["pv"] == got["pv"]
    assert all(i["nodes"] >= 0 and i["time"] >= 0 for i in infos)


def test_solve_with_id_and_all(engine):
    from solver import solve
    engine.handle(pos_line(FOLLOW))
    infos, final = split_solve_reply(engine.handle("21 solve all"), "21")
    got = json.loads(final)
    expected = solve(FOLLOW, all_moves=True).to_json()
    assert without_volatile(got) == without_volatile(expected)
    moves = [i for i in infos if "move" in i]
    assert [{"move": i["move"], "value": i["value"]} for i in moves] == \
        [{k: v for k, v in m.items() if k != "equivalent"} for m in got["moves"]]
    assert [i["index"] for i in moves] == list(range(1, len(moves) + 1))
    assert all(i["count"] == len(moves) for i in moves)
    assert moves[0]["move"] == PASS
    last = infos[-1]
    assert last["scored"] == len(moves) and last["nodes"] == got["nodes"]


def test_solve_streams_info_through_emit(engine):
    engine.handle(pos_line(LEAD))
    seen = []
    reply = engine.handle("solve all", emit=seen.append)
    assert reply.startswith("= {") and reply.count("\n") == 2
    kinds = [list(i)[0] for i in stages([parse_info(x) for x in seen])]
    assert kinds == ["value", "best", "move", "move", "move", "scored"]
    assert any(x.startswith("info bound ") for x in seen)


def test_solve_every_streams_what_the_search_is_still_doing(engine):
    """PROTOCOL.md, solve: ``every=S`` adds ``info working TASK lower L upper U [move MOVE
    index I count C] nodes N time T`` lines about every S seconds of search: "value" lines
    before the ``value`` line, "best" and "moves" lines after it, a "moves" line naming the
    move scored next; the reply is the same as without it (from empty tables)."""
    engine.handle(pos_line(BIG))
    assert engine.handle("clear_table") == "=\n\n"
    plain = engine.handle("solve all").split("\n")[-3]
    assert engine.handle("clear_table") == "=\n\n"
    seen = []
    reply = engine.handle("solve all every=0.000001", emit=seen.append)
    final = json.loads(reply.split("\n")[-3][2:])
    assert without_volatile(final) == without_volatile(json.loads(plain[2:]))
    assert final["nodes"] == json.loads(plain[2:])["nodes"]
    infos = [parse_info(line) for line in seen]
    working = [i for i in infos if "working" in i]
    assert "moves" in {i["working"] for i in working}
    value_at = next(n for n, i in enumerate(infos) if "value" in i and "exact" in i)
    for n, i in enumerate(infos):
        if "working" not in i:
            continue
        assert (n < value_at) == (i["working"] == "value")
        keys = ["working", "lower", "upper"]
        if i["working"] == "moves":
            keys += ["move", "index", "count"]
            following = next(j for j in infos[n:] if "move" in j and "value" in j)
            assert (i["move"], i["index"]) == (following["move"], following["index"])
        assert list(i) == keys + ["nodes", "time"]
        if n > value_at:
            assert i["lower"] == i["upper"] == final["value"]
    # the best move's choice (4 x 6 item 5: over 65,536 nodes after the value)
    obj = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][5]
    engine.handle(pos_line(obj))
    assert engine.handle("clear_table") == "=\n\n"
    seen.clear()
    engine.handle("solve every=0.000001", emit=seen.append)
    infos = [parse_info(line) for line in seen]
    value_at = next(n for n, i in enumerate(infos) if "exact" in i)
    best = [n for n, i in enumerate(infos) if i.get("working") == "best"]
    assert best and min(best) > value_at
    # a whole deal under a node limit: the value is still being searched
    import random
    from guandan_core.match import deal
    engine.handle(pos_line(Position(7, deal(random.Random(4)), to_move=0).to_json()))
    seen.clear()
    engine.handle("solve nodes=300000 every=0.000001", emit=seen.append)
    infos = [parse_info(line) for line in seen]
    working = [i for i in infos if "working" in i]
    assert working and all(i["working"] == "value" for i in working)
    assert infos.index(working[-1]) < next(n for n, i in enumerate(infos) if "exact" in i)
    seen.clear()
    engine.handle("solve nodes=300000 at_least=2 every=0.000001", emit=seen.append)
    working = [parse_info(line) for line in seen if line.startswith("info working ")]
    assert working and all(i["working"] == "question" for i in working)


def test_solve_with_limits(engine):
    # the solver keeps its table across solves: start cold so the node limit bites
    assert engine.handle("clear_table") == "=\n\n"
    engine.handle(pos_line(BIG))
    infos, final = split_solve_reply(engine.handle("solve nodes=50 all"))
    got = json.loads(final)
    assert got["exact"] is False and got["value"] is None
    assert -3 <= got["lower"] <= got["upper"] <= 3
    assert infos[0]["exact"] is False and infos[0]["value"] is None
    # only scored moves get an info line and count as scored (every move used to: eight
    # "info move ... value null" lines and "info scored 8" where none was scored)
    scored = [m["move"] for m in got["moves"] if m["value"] is not None]
    assert [i["move"] for i in infos if "move" in i and "value" in i] == scored
    assert infos[-1]["scored"] == len(scored) < len(got["moves"])
    infos, final = split_solve_reply(engine.handle("solve time=5 nodes=100000000"))
    assert json.loads(final)["exact"] is True


def test_solve_says_when_a_budget_cut_the_line(engine):
    """A budget that runs out while the principal line is followed: the value stays exact,
    and both the info best line and the reply say that the line is cut."""
    from solver import solve
    obj = json.loads((ROOT / "tests" / "data" / "endgames_4x6.json").read_text())["items"][1]
    nodes = solve(obj, fresh_tables=True).nodes
    engine.handle(pos_line(obj))
    for budget, cut in ((nodes - 100, True), (nodes, False)):
        assert engine.handle("clear_table") == "=\n\n"
        infos, final = split_solve_reply(engine.handle(f"solve nodes={budget}"))
        got = json.loads(final)
        best = [i for i in infos if "best" in i]
        assert got["exact"] is True and len(best) == 1 and best[0]["pv"] == got["pv"]
        assert got.get("pv_cut", False) is cut and best[0].get("pv_cut", False) is cut
        assert list(best[0]) == ["best", "pv", *(["pv_cut"] if cut else []), "nodes", "time"]


def test_solve_with_a_zero_budget_answers_what_is_proven_without_a_search(engine):
    """nodes=0 and time=0 are budgets like any other (the CLI and solve() take 0 too; the
    protocol used to refuse them): nothing is searched, the bounds are those of
    solve(node_limit=0)."""
    from solver import solve
    engine.handle(pos_line(BIG))
    for option, limit in (("nodes=0", {"node_limit": 0}), ("nodes=0 all", {"node_limit": 0}),
                          ("time=0", {"time_limit": 0})):
        expected = solve(BIG, fresh_tables=True, **limit).to_json()
        assert engine.handle("clear_table") == "=\n\n"
        _, final = split_solve_reply(engine.handle("solve " + option))
        got = json.loads(final)
        assert got["exact"] is False and got["nodes"] == expected["nodes"] <= 4, option
        assert (got["lower"], got["upper"]) == (expected["lower"], expected["upper"]), option


def test_solve_at_least_asks_one_question(engine):
    """Threshold mode over the protocol: the reply is solve(at_least=...)'s JSON, with the
    question and its answer; both answers occur on the same position."""
    from solver import solve
    engine.handle(pos_line(BIG))
    value = solve(BIG, pv=False).value
    for t in (value, value + 1 if value < 3 else -3):
        infos, final = split_solve_reply(engine.handle(f"solve at_least={t:+d}"))
        got = json.loads(final)
        expected = solve(BIG, at_least=t).to_json()
        assert without_volatile(got) == without_volatile(expected)
        assert got["threshold"] == t and got["reached"] == (value >= t)
        assert infos[0]["lower"] == got["lower"] and infos[0]["upper"] == got["upper"]
    # every move asked the question: one info line per move, with its answer
    infos, final = split_solve_reply(engine.handle("solve all at_least=1"))
    got = json.loads(final)
    moves = [i for i in infos if "move" in i]
    assert [i["reaches"] for i in moves] == [m["reaches"] for m in got["moves"]]
    assert [i["value"] for i in moves] == [None] * len(moves)
    assert any(i["reaches"] for i in moves) == (value >= 1)
    # the value line comes before the moves' lines, also when no move reaches the
    # threshold (there is no best line then; it used to come after the moves)
    for t in range(-3, 4):
        if t:
            infos, final = split_solve_reply(engine.handle(f"solve all at_least={t}"))
            kinds = [list(i)[0] for i in infos]
            assert kinds.index("value") < kinds.index("move"), (t, kinds)
            got = json.loads(final)
            assert (infos[kinds.index("value")]["lower"],
                    infos[kinds.index("value")]["upper"]) == (got["lower"], got["upper"])
            assert list(got)[-5:] == ["reached", "moves", "nodes", "tt_hits", "seconds"]
    reason = fail(engine.handle("solve at_least=4"))
    assert reason.startswith("solve: at_least: ") and "'4'" in reason


# ---------------------------------------------------------------------- analyze

def test_analyze():
    analysis = pytest.importorskip("guandan_core.analysis")
    engine = EngineProtocol()
    expected = analysis.analyze("S3 S3 S4 S5 S6 S7", "7", "S8 S8", Rules.standard())
    for line in ('analyze "S3 S3 S4 S5 S6 S7" level=7 played="S8 S8"',
                 "analyze S3 S3 S4 S5 S6 S7 level=7 played=S8,S8",
                 "analyze S3,S3,S4,S5,S6,S7 played=S8,S8 level=7",
                 "analyze 'S3 S3 S4' S5 S6 S7 level=7 played='S8 S8'"):
        assert json.loads(ok(engine.handle("8 " + line, ), "8")) == expected, line
    # the level defaults to the current position's, else 2
    assert json.loads(ok(engine.handle("analyze S3 S4")))["level"] == "2"
    engine.handle(pos_line(FOLLOW))
    assert json.loads(ok(engine.handle("analyze S3 S4")))["level"] == "7"
    # the rules command applies
    engine.handle("rules platform")
    assert json.loads(ok(engine.handle("analyze H2 S3 S4 S5 S6 level=2"))) == \
        analysis.analyze("H2 S3 S4 S5 S6", "2", None, Rules.platform())


# ---------------------------------------------------------------------- serve

def test_serve_loop():
    script = "\n".join(["1 name", "# comment", "", "frobnicate", "2 version", "quit",
                        "3 name"]) + "\n"
    out = io.StringIO()
    engine = EngineProtocol()
    assert engine.serve(io.StringIO(script), out) == 0
    assert out.getvalue() == ("=1 guandan-core\n\n? unknown command 'frobnicate' "
                              "(see list_commands)\n\n"
                              f"=2 {guandan_core.__version__}\n\n=\n\n")
    # end of input without quit
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO("name"), out) == 0
    assert out.getvalue() == "= guandan-core\n\n"
    # no input stream at all (a process started with stdin closed): end of input
    out = io.StringIO()
    assert EngineProtocol().serve(None, out) == 0 and out.getvalue() == ""


def test_an_over_long_line_is_refused_and_skipped(monkeypatch):
    """A line longer than MAX_LINE characters gets one `?` reply (with its id) and is
    skipped to its end without being held in memory: a stream with no line breaks
    (/dev/zero) was read until memory ran out. The lines after it are answered."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    script = ("1 name\n7 position " + "x" * 5000 + "\n" + "y" * 1001 + "\n2 name\n"
              + "z" * 999 + "\n3 name\n")
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == (
        "=1 guandan-core\n\n"
        "?7 line too long: more than 1,000 characters (skipped to its end)\n\n"
        "? line too long: more than 1,000 characters (skipped to its end)\n\n"
        "=2 guandan-core\n\n"
        "? unknown command '" + "z" * 999 + "' (see list_commands)\n\n"
        "=3 guandan-core\n\n")
    # a comment or a blank line gets no reply however long; a BOM is not the line's id;
    # a last line of exactly MAX_LINE characters without a line break is read
    script = ("\ufeff4 " + "x" * 2000 + "\n# " + "c" * 3000 + "\n" + " \t" * 2000 + "\n"
              + "5 name\n6 frob" + "x" * 994)     # 1,000 characters
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == (
        "?4 line too long: more than 1,000 characters (skipped to its end)\n\n"
        "=5 guandan-core\n\n"
        "?6 unknown command 'frob" + "x" * 994 + "' (see list_commands)\n\n")
    # what comes after more than MAX_LINE blanks still decides: a comment (no reply, a
    # client counting replies fell out of step) or the id the reply carries
    script = (" " * 2500 + "# a comment\n" + " \t" * 1500 + "12 name " + "x" * 900
              + "\n7 name\n")
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == (
        "?12 line too long: more than 1,000 characters (skipped to its end)\n\n"
        "=7 guandan-core\n\n")


def test_line_length_counts_no_line_break(monkeypatch):
    """MAX_LINE characters are the line's own: a line of exactly MAX_LINE characters ended
    by \\r\\n is read (the \\r was counted and the line refused), one more is refused; the
    id of an over-long line is echoed whole, however long."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    long_id = "9" * 150
    script = ("1 frob" + "x" * 994 + "\r\n" + "2 frob" + "x" * 995 + "\r\n3 name\r\n"
              + long_id + " name " + "x" * 1000 + "\r\n")
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == (
        "?1 unknown command 'frob" + "x" * 994 + "' (see list_commands)\n\n"
        "?2 line too long: more than 1,000 characters (skipped to its end)\n\n"
        "=3 guandan-core\n\n"
        "?" + long_id + " line too long: more than 1,000 characters (skipped to its end)\n\n")


def test_an_over_long_lines_id_is_read_whole_wherever_a_chunk_ends(monkeypatch):
    """An over-long line is read in chunks of about MAX_LINE characters; an id that a
    chunk's end cuts (after a megabyte of blanks) is read on into the next chunk: the
    reply carried the first chunk's digits alone (`?1` for `123`, an id already
    answered), and digits followed by a word (`12name`) are no id. An id is at most
    MAX_LINE digits, as a line is: a longer run of digits gets a reply without one."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    script = ("1 name\n" + " " * 1001 + "123 name\n" + " " * 999 + "456789 name\n"
              + " \t" * 500 + "12name\n" + " " * 998 + "77\tname " + "x" * 10 + "\n"
              + " " * 500 + "9" * 1001 + " name\n" + "8" * 1000 + " x\n2 name\n")
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    too_long = " line too long: more than 1,000 characters (skipped to its end)\n\n"
    assert out.getvalue() == ("=1 guandan-core\n\n" + "?123" + too_long + "?456789" + too_long
                              + "?" + too_long + "?77" + too_long + "?" + too_long
                              + "?" + "8" * 1000 + too_long + "=2 guandan-core\n\n")


def test_an_id_that_fills_a_chunk_and_goes_on_is_longer_than_max_line(monkeypatch):
    """PROTOCOL.md: an id has at most MAX_LINE digits; a run of MAX_LINE digits that a
    chunk's end cuts and the next chunk continues is longer, so the reply has no id (not
    the first MAX_LINE digits as an id)."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    script = "1 name\n" + "  " + "9" * 1000 + "9 name\n2 name\n"    # 1,001 digits
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == (
        "=1 guandan-core\n\n"
        "? line too long: more than 1,000 characters (skipped to its end)\n\n"
        "=2 guandan-core\n\n")


def test_an_over_long_last_line_without_a_line_break_ends_the_input(monkeypatch):
    """An over-long line that the input ends without a line break is refused like any
    other, and the end of input ends serve (it was read on for a line break forever)."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    out = io.StringIO()
    served = threading.Thread(target=EngineProtocol().serve, daemon=True,
                              args=(io.StringIO("1 name\n3 name " + "x" * 3000), out))
    served.start()
    served.join(timeout=30)
    assert not served.is_alive()
    assert out.getvalue() == (
        "=1 guandan-core\n\n"
        "?3 line too long: more than 1,000 characters (skipped to its end)\n\n")


def test_handle_answers_an_over_long_line_as_serve_does(monkeypatch):
    """PROTOCOL.md: handle(line) returns the command's reply, a line too long included
    (it answered one over MAX_LINE characters as if it were short: `=1 false` for a
    known_command, an id of MAX_LINE + 1 digits echoed). Comments and blank lines get no
    reply, however long; a line of MAX_LINE characters, its line break apart, is read."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    lines = ["1 known_command " + "x" * 985, "1" * 1001 + " name", "2" * 1010,
             "3 name " + "x" * 993 + "\r\n", "4 known_command " + "x" * 984 + "\r\n",
             "# " + "c" * 2000, " \t" * 1000, "5 name"]
    served = io.StringIO()
    assert EngineProtocol().serve(io.StringIO("".join(
        line if line.endswith("\n") else line + "\n" for line in lines)), served) == 0
    engine = EngineProtocol()
    handled = "".join(engine.handle(line) for line in lines)
    assert handled == served.getvalue()
    assert handled.count("line too long") == 3 and "=4 false" in handled


def test_handle_and_serve_take_text_only():
    """handle() and serve() read text: bytes are a TypeError naming them (handle answered
    `? internal error`, serve() returned 0 having read nothing while its reader thread
    died with a traceback)."""
    engine = EngineProtocol()
    with pytest.raises(TypeError, match="handle\\(\\) takes a line of text \\(str\\), not bytes"):
        engine.handle(b"1 name")
    out = io.StringIO()
    with pytest.raises(TypeError, match="serve\\(\\) reads a text stream, not one of bytes"):
        engine.serve(io.BytesIO(b"1 name\n"), out)
    assert out.getvalue() == "" and engine.handle("2 name") == "=2 guandan-core\n\n"
    # a binary output before any command runs (it failed at the first reply, after the
    # command had been carried out, and returned 0 when no reply came)
    for sink in (io.BytesIO(), io.BufferedWriter(io.BytesIO()), None):
        engine = EngineProtocol()
        with pytest.raises(TypeError, match="serve\\(\\) writes a text stream, not "):
            engine.serve(io.StringIO('position {"level": "2", "hands": [["S3"], ["S4"], '
                                     '["S5"], ["S6"]], "to_move": 0}\n'), sink)
        assert engine.position is None


def test_a_stream_of_digits_without_a_line_break_is_not_held(monkeypatch):
    """PROTOCOL.md: a stream with no line breaks never fills the memory, a run of digits
    (an id that may go on) included: it is read on only while it could still be an id of
    at most MAX_LINE digits, and the reply has no id."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    stream, out = io.StringIO("7" * 2_000_000), io.StringIO()
    tracemalloc.start()
    try:
        assert EngineProtocol().serve(stream, out) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.getvalue() == "? line too long: more than 1,000 characters (skipped to its end)\n\n"
    assert peak < 1_000_000, peak


def test_solve_options_are_separated_by_spaces_only():
    """PROTOCOL.md: only spaces and tabs separate words; a no-break space (or U+2028)
    is part of the word it touches, in solve's options as in every other command."""
    engine = EngineProtocol()
    ok(engine.handle(pos_line(LEAD)))
    for blank in ("\u00a0", "\u2028", "\u3000", "\x0b"):
        reply = engine.handle("5 solve nodes=5" + blank + "all")
        assert reply.startswith("?5 solve: nodes must be a whole number"), (blank, reply)
    last = engine.handle("6 solve nodes=5 \t all").strip().split("\n")[-1]
    answer = json.loads(last.removeprefix("=6 "))
    assert answer["nodes"] <= 5 and len(answer["moves"]) == 3


class _PacedInput:
    """stdin for serve(): the given lines; at each read it notes how many lines were read
    before it and how many replies were written by then."""

    def __init__(self, lines, out):
        self.lines = [line + "\n" for line in lines]
        self.out = out
        self.reads = []

    def readline(self, size=-1):
        self.reads.append((len(self.reads), self.out.getvalue().count("\n\n")))
        return self.lines.pop(0) if self.lines else ""


def test_input_read_ahead_of_a_running_command_is_bounded(monkeypatch):
    """While a solve runs the engine reads on (so that `stop` is seen), but no further than
    READ_AHEAD: lines were kept without bound, and 30 MB of short lines written during a
    search took 866 MB. Every line is still answered, in order."""
    line = "solve time=0.05"
    held = 10       # lines the bound holds: each costs its characters and 256 more
    monkeypatch.setattr(protocol, "READ_AHEAD", held * (len(line) + 1 + 256))
    out = io.StringIO()
    stdin = _PacedInput([_whole_deal_line()] + [line] * 40, out)
    assert EngineProtocol().serve(stdin, out) == 0
    replies = out.getvalue().split("\n\n")[:-1]
    assert len(replies) == 41 and replies[0].startswith("= to_move 0")
    assert all(r.split("\n")[-1].startswith("= {") for r in replies[1:])
    # read but not yet answered: the lines held, and the one being answered
    assert max(read - answered for read, answered in stdin.reads) <= held + 1


@pytest.mark.parametrize("names, stopped", [(3, True), (30, False)])
def test_a_stop_behind_more_than_the_read_ahead_waits_for_the_solve(monkeypatch, names,
                                                                     stopped):
    """PROTOCOL (solve): a stop behind more input than READ_AHEAD is seen only once the
    engine has caught up, so a solve runs on to its budget; one within it ends the solve
    at once (the bound scaled down to 10 short lines here; at its real size, 64 Mi
    characters, about 250,000 of them)."""
    monkeypatch.setattr(protocol, "READ_AHEAD", 10 * (len("name") + 1 + 256))
    lines = [_whole_deal_line(), "1 solve time=3"] + ["name"] * names + ["2 stop"]
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO("\n".join(lines) + "\n"), out) == 0
    solved = next(r for r in out.getvalue().splitlines() if r.startswith("=1 "))
    seconds = json.loads(solved[3:])["seconds"]
    assert (seconds < 1.5) if stopped else (seconds >= 2.9), seconds
    assert out.getvalue().count("= guandan-core") == names and "=2\n" in out.getvalue()


def test_over_long_lines_count_their_ids_against_the_read_ahead(monkeypatch):
    """An over-long line keeps only its id while it waits, but that id can be as long as
    the line: it counts against READ_AHEAD (a flat cost let about a million lines of
    digits, each holding a 1 MiB id, queue behind a running solve)."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    held = 10
    monkeypatch.setattr(protocol, "READ_AHEAD", held * (1001 + 256))
    out = io.StringIO()
    stdin = _PacedInput([_whole_deal_line(), "solve time=0.2"] + ["9" * 1000 + " x"] * 40,
                        out)
    assert EngineProtocol().serve(stdin, out) == 0
    replies = out.getvalue().split("\n\n")[:-1]
    assert replies[2:] == ["?" + "9" * 1000 + " line too long: more than 1,000 characters "
                           "(skipped to its end)"] * 40
    assert max(read - answered for read, answered in stdin.reads) <= held + 2


def test_the_reader_stops_when_serve_returns(monkeypatch):
    """serve() inside a program that goes on: when it returns (here its output is
    closed), its input reader, waiting for room in the read-ahead, ends too instead of
    waiting for good."""
    import time
    monkeypatch.setattr(protocol, "READ_AHEAD", 2 * (5 + 256))
    # a short line, then long ones (461 of the 522 read ahead each): the reader queues
    # the first, then the second once the first is taken, then waits for room with the
    # third read; only then is the output found closed
    long_line = "name" + " " * 200 + "\n"
    stdin = io.StringIO("name\n" + long_line * 50)
    third_read = len("name\n") + 2 * len(long_line)

    class Closed(io.StringIO):
        def write(self, text):
            until = time.monotonic() + 5
            while stdin.tell() < third_read and time.monotonic() < until:
                time.sleep(0.001)
            raise BrokenPipeError

    # (every thread serve starts, recorded: one that had already ended by the time the
    # test looked for it was not seen, and an empty list of readers passed)
    started, start = [], threading.Thread.start

    def recorded(thread):
        started.append(thread)
        return start(thread)
    monkeypatch.setattr(threading.Thread, "start", recorded)
    assert EngineProtocol().serve(stdin, Closed()) == 0
    # (READ_AHEAD left as patched: restoring it would give a waiting reader room)
    assert len(started) == 1 and stdin.tell() == third_read
    started[0].join(timeout=5)
    assert not started[0].is_alive()


def test_a_first_line_with_a_byte_order_mark_is_measured_without_it(monkeypatch):
    """The BOM is not part of the first line's MAX_LINE characters, and a line that goes
    on past them is refused whole (with a BOM, its MAX_LINE characters and a \\r were
    taken for a whole line and the rest for another)."""
    monkeypatch.setattr(protocol, "MAX_LINE", 1000)
    for script, first in (("\ufeff1 frob" + "x" * 994 + "\r\n3 name\n",
                           "?1 unknown command 'frob" + "x" * 994 + "' (see list_commands)"),
                          ("\ufeff1 frob" + "x" * 994 + "\r2 name\n3 name\n",
                           "?1 line too long: more than 1,000 characters (skipped to its end)")):
        out = io.StringIO()
        assert EngineProtocol().serve(io.StringIO(script), out) == 0
        assert out.getvalue() == first + "\n\n=3 guandan-core\n\n"


def test_a_refused_quit_does_not_end_the_session():
    """`quit x` is answered with `?` and the engine goes on serving: the input reader acts
    on `quit` (and `stop`) only when the command itself is valid."""
    out = io.StringIO()
    script = "1 quit x\n2 quit\tnow\n3 name\n4 quit\n5 name\n"
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    assert out.getvalue() == ("?1 quit takes no arguments, not 'x'\n\n"
                              "?2 quit takes no arguments, not 'now'\n\n"
                              "=3 guandan-core\n\n=4\n\n")


def test_serve_streams_info_before_the_reply():
    out = io.StringIO()
    EngineProtocol().serve(io.StringIO(pos_line(LEAD) + "\n5 solve all\n"), out)
    text = out.getvalue()
    replies = text.split("\n\n")
    assert replies[-1] == ""
    lines = replies[1].split("\n")
    infos = [x for x in lines[:-1] if not x.startswith("info bound ")]
    assert all(x.startswith("info ") for x in lines[:-1]) and len(infos) == 6
    assert lines[-1].startswith("=5 {")


# ---------------------------------------------------------------------- subprocess

class Engine:
    """A ``guandan engine`` subprocess with a reader thread (so no read can hang)."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "guandan_core.cli", "engine", *args], cwd=PACKAGES,
            env=cli_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines, self.answered = queue.Queue(), False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8"))
        self.lines.put(None)

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def line(self, timeout=10.0):
        # (the first line waits for the interpreter's start-up and imports too, which a
        # starved machine can stretch past the seconds a reply is given)
        item = self.lines.get(timeout=timeout if self.answered else max(timeout, 120))
        self.answered = True
        assert item is not None, "engine closed its output"
        return item

    def reply(self, timeout=10.0):
        """The next reply: (info lines, the reply's lines), the blank line consumed."""
        infos, body = [], []
        while True:
            text = self.line(timeout)
            assert text.endswith("\n")
            text = text[:-1]
            if not body and text.startswith("info "):
                infos.append(text)
            elif text == "":
                assert body, "a blank line before any reply"
                return infos, body
            else:
                assert body or text[:1] in "=?", text
                body.append(text)

    def ask(self, command):
        self.send(command + "\n")
        return self.reply()

    def finish(self, timeout=10.0):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        code = self.proc.wait(timeout)
        self.reader.join(timeout)
        rest = []
        while not self.lines.empty():
            item = self.lines.get()
            if item is not None:
                rest.append(item)
        err = self.proc.stderr.read().decode("utf-8", "replace")
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()      # (the reader has met the end of stdout)
        return code, "".join(rest), err


@pytest.fixture
def proc():
    e = Engine()
    yield e
    if e.proc.poll() is None:
        e.proc.kill()
        e.proc.wait()
    for stream in (e.proc.stdin, e.proc.stdout, e.proc.stderr):
        try:
            stream.close()
        except (OSError, ValueError):
            pass


def test_subprocess_session(proc):
    from solver import solve

    # replies come back one at a time while stdin stays open (flushed at once)
    assert proc.ask("1 protocol_version") == ([], ["=1 1"])
    assert proc.ask("name") == ([], ["= guandan-core"])
    assert proc.ask("2 version") == ([], [f"=2 {guandan_core.__version__}"])
    infos, body = proc.ask("list_commands")
    assert body[0] == "= protocol_version" and "solve" in body and "quit" in body

    # comments and blank lines get no reply; a malformed line, then a good one
    proc.send("# a comment\n\n")
    infos, body = proc.ask("3 position {not json")
    assert body[0].startswith("?3 ") and "JSON" in body[0]
    assert proc.ask("4 bogus-command") == ([], ["?4 unknown command 'bogus-command' "
                                                "(see list_commands)"])
    proc.send(b"\xff\xfe garbage\n")                        # not even UTF-8
    # each undecodable byte read as U+FFFD (not as a surrogate, which the reply would
    # show as an escape): an unknown command
    assert proc.reply() == ([], ["? unknown command '\ufffd\ufffd' (see list_commands)"])
    assert proc.ask("5 " + pos_line(FOLLOW))[1][0].startswith("=5 to_move 3")

    infos, body = proc.ask("moves")
    moves = json.loads(body[0][2:])
    assert moves[0] == PASS and moves == [m.to_platform()
                                          for m in Position.from_json(FOLLOW).legal_moves()]

    # an illegal play: refused, position unchanged, engine still serving
    infos, body = proc.ask('6 play ["Single","R",["HR"]]')
    assert body[0].startswith("?6 ") and "does not hold HR" in body[0]
    infos, body = proc.ask("showposition")
    assert json.loads(body[0][2:]) == FOLLOW
    infos, body = proc.ask('7 play ["PASS","PASS","PASS"]')
    after = json.loads(body[0][3:])
    assert after["to_move"] == 0 and after["table"] == FOLLOW["table"]
    assert proc.ask("undo")[1][0].startswith("= {")

    # solve: info lines streamed first, then exactly `guandan solve --json`'s object
    infos, body = proc.ask("8 solve all")
    assert len(body) == 1 and body[0].startswith("=8 {")
    final = body[0][3:]
    got = json.loads(final)
    assert final == json.dumps(got)
    expected = solve(FOLLOW, all_moves=True).to_json()
    assert without_volatile(got) == without_volatile(expected)
    parsed = stages([parse_info(i) for i in infos])
    assert list(parsed[0])[0] == "value" and parsed[0]["value"] == got["value"]
    assert list(parsed[1])[0] == "best" and parsed[1]["best"] == got["best"]
    assert [p["move"] for p in parsed if "move" in p] == [m["move"] for m in got["moves"]]
    assert parsed[-1]["scored"] == len(got["moves"])

    infos, body = proc.ask("9 solve nodes=nine")
    assert infos == [] and body[0].startswith("?9 ")

    assert proc.ask("10 quit") == ([], ["=10"])
    code, rest, err = proc.finish()
    assert code == 0 and rest == "" and err == ""


def test_subprocess_commands_after_quit_are_ignored_and_eof_exits(proc):
    proc.send("name\nquit\nname\n")
    assert proc.reply() == ([], ["= guandan-core"])
    assert proc.reply() == ([], ["="])
    code, rest, err = proc.finish()
    assert (code, rest, err) == (0, "", "")


def _whole_deal_line() -> str:
    """A position of 27 cards each: no solve of it ends within a test's time."""
    import random
    from guandan_core.match import deal
    return pos_line(Position(7, deal(random.Random(3)), to_move=0).to_json())


def _stopped_on_a_whole_deal(proc, command: str, busy: float):
    """``1 COMMAND`` on a 27-card deal (no search of it ends within a test's time), then
    ``2 stop`` and ``3 name`` once the engine has used ``busy`` more seconds of CPU time,
    so surely while it searches (a sleep of that long let the stop of a starved engine
    come before its first deal began): the command's reply comes within moments, then
    the others' in order. Its (info lines, JSON payload). Linux only (reads /proc)."""
    import time
    assert proc.ask(_whole_deal_line())[1][0].startswith("= to_move 0")
    before = cpu_seconds(proc.proc.pid)
    proc.send(f"1 {command}\n")
    assert soon(lambda: cpu_seconds(proc.proc.pid) - before >= busy, within=300)
    sent = time.monotonic()
    proc.send("2 stop\n3 name\n")
    infos, body = proc.reply(timeout=30)
    assert time.monotonic() - sent < 10
    assert body[0].startswith("=1 {")
    assert proc.reply() == ([], ["=2"])
    assert proc.reply() == ([], ["=3 guandan-core"])
    return infos, json.loads(body[0][3:])


def test_subprocess_stop_ends_a_running_solve_and_replies_stay_in_order(proc):
    """`stop` is read while `solve` runs (input is read on a thread of its own): the search
    ends at once with the bounds it proved, then `stop` and the commands after it are
    answered in order."""
    infos, got = _stopped_on_a_whole_deal(proc, "solve", 0.5)
    assert got["exact"] is False and got["best"] is not None
    assert any(i.startswith("info value null exact false ") for i in infos)
    # the next solve is not stopped: stop ends only the solves read before it
    assert proc.ask("4 " + pos_line(LEAD))[1][0].startswith("=4 to_move 0")
    assert json.loads(proc.ask("5 solve")[1][0][3:])["exact"] is True
    assert proc.ask("6 stop") == ([], ["=6"])         # nothing running: nothing to stop
    assert proc.ask("stop now")[1][0].startswith("? stop takes no arguments")


def test_a_stop_handled_in_process_ends_the_solves_other_threads_run():
    """PROTOCOL (From Python): handle("stop") while other threads' handle() runs a solve
    or a sample ends them, as stop does under serve (it answered =2 and stopped nothing:
    the solve ran to its end); a solve handled after it is not stopped."""
    import time
    engine = EngineProtocol()
    assert engine.handle(_whole_deal_line()).startswith("= to_move 0")
    replies = {}

    def ask(line):
        replies[line] = engine.handle(line, emit=lambda info: None)

    # (a time limit, so that a stop that fails ends the test too, only later)
    threads = [threading.Thread(target=ask, args=(line,))
               for line in ("1 solve time=30", "2 sample deals=50 time=30")]
    for t in threads:
        t.start()
    # (both running: a sleep for them could let the stop come before one had begun)
    assert soon(lambda: len(engine._running) >= 2, within=60)
    sent = time.monotonic()
    assert engine.handle("3 stop") == "=3\n\n"
    for t in threads:
        t.join(60)
    assert time.monotonic() - sent < 10
    assert json.loads(replies["1 solve time=30"][3:])["exact"] is False
    assert json.loads(replies["2 sample deals=50 time=30"][3:])["samples"] < 50
    assert engine.handle("4 " + pos_line(LEAD)).startswith("=4 to_move 0")
    assert json.loads(engine.handle("5 solve", emit=lambda info: None)[3:])["exact"] is True
    assert engine._running == set()


def test_a_stop_handled_in_process_ends_the_solve_serve_runs():
    """The same for a solve that serve() runs in its own thread (it was left out, and
    ran to its time limit)."""
    import io
    import os
    import time
    engine = EngineProtocol()
    read_end, write_end = os.pipe()
    stdin, stdout = os.fdopen(read_end, "r"), io.StringIO()
    server = threading.Thread(target=engine.serve, args=(stdin, stdout))
    server.start()
    try:
        os.write(write_end, (_whole_deal_line() + "\n1 solve time=30\n").encode())
        assert soon(lambda: len(engine._running) >= 1, within=60)
        sent = time.monotonic()
        assert engine.handle("2 stop") == "=2\n\n"
        while "=1 " not in stdout.getvalue() and time.monotonic() - sent < 60:
            time.sleep(0.02)
        assert time.monotonic() - sent < 10
    finally:
        os.write(write_end, b"quit\n")
        server.join(60)
        os.close(write_end)
    answer = next(line for line in stdout.getvalue().splitlines() if line.startswith("=1 "))
    assert json.loads(answer[3:])["exact"] is False and engine._running == set()


def test_an_engine_session_copies_and_pickles_as_a_session_of_its_own():
    """A copy, deep copy or pickle of an EngineProtocol has its position, history and
    rules, and stops its own searches (the thread-local and the lock of the stops are
    made anew: deepcopy and pickle failed on them, and a copy shared them)."""
    import copy
    import pickle
    engine = EngineProtocol("long-sequences")
    engine.handle(pos_line(LEAD))
    engine.handle('play ["Single", "A", ["SA"]]')
    for how in (copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))):
        twin = how(engine)
        assert twin.position == engine.position and twin.history == engine.history
        assert twin.rules_name == "long-sequences" and twin.handle("undo").startswith("=")
        assert twin._running is not engine._running
        assert twin._running_lock is not engine._running_lock
        assert engine.position != twin.position          # (its undo was its own)


def test_subprocess_a_refused_stop_does_not_stop_the_solve(proc):
    import time
    assert proc.ask(_whole_deal_line())[1][0].startswith("= to_move 0")
    proc.send("1 solve\n2 stop x\n")
    time.sleep(1.5)
    assert proc.lines.empty()           # the solve still runs: `stop x` stopped nothing
    proc.send("3 stop\n")
    infos, body = proc.reply(timeout=30)
    assert body[0].startswith("=1 {") and json.loads(body[0][3:])["exact"] is False
    assert proc.reply()[1] == ["?2 stop takes no arguments, not 'x'"]
    assert proc.reply() == ([], ["=3"])


def test_subprocess_quit_during_a_solve_waits_for_it():
    """quit is carried out in order: a solve before it finishes first (it used to stop
    it, and a command file ending in quit, read ahead while its first solve ran, had
    every solve cut to one node with no value: a helper's finding with the documented
    transcript); stop is what interrupts."""
    e = Engine()
    e.send(_whole_deal_line() + "\n1 solve time=1\n2 quit\n3 name\n")
    code, rest, err = e.finish(timeout=60)
    assert (code, err) == (0, "")
    replies = rest.split("\n\n")
    solved = json.loads(replies[1].split("\n")[-1][3:])
    assert solved["seconds"] >= 0.9 and solved["nodes"] > 10_000   # ran to its budget
    assert replies[2:] == ["=2", ""]                                # name not read


def test_subprocess_a_command_file_ending_in_quit_is_answered_whole():
    """The example session of PROTOCOL.md, its input lines piped at once."""
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    script = "".join(line[2:] + "\n" for line in doc.splitlines() if line.startswith("> "))
    assert script.endswith("12 quit\n") and "\n7 solve all\n" in script
    e = Engine()
    e.send(script)
    code, rest, err = e.finish(timeout=60)
    assert (code, err) == (0, "")
    solve_reply = next(r for r in rest.split("\n\n") if "\n=7 {" in "\n" + r)
    got = json.loads(solve_reply.split("\n")[-1][3:])
    # the whole search, as a fresh solve of that position does it, and the true value
    from reference_minimax import value_for_mover
    from solver import solve
    position = next(line[len("4 position "):] for line in script.splitlines()
                    if line.startswith("4 position "))
    pos = Position.from_json(position)
    fresh = solve(pos, all_moves=True, fresh_tables=True)
    assert got["exact"] is True and got["value"] == value_for_mover(pos) == fresh.value
    assert got["nodes"] == fresh.nodes and len(got["moves"]) == len(fresh.moves)
    assert rest.endswith("=12\n\n")


def test_the_example_session_is_what_the_engine_writes():
    """PROTOCOL.md's example session, replayed: the engine's output is the document's,
    line for line, but for the times (its solve reply had `moves` after `seconds`)."""
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    block = doc[doc.index("## Example session"):]
    block = block[block.index("```\n") + 4:]
    block = block[:block.index("```")].splitlines()
    script = "".join(line[2:] + "\n" for line in block if line.startswith(">"))
    e = Engine()
    e.send(script)
    code, rest, err = e.finish(timeout=60)
    assert (code, err) == (0, "")

    def shown(lines):
        return [re.sub(r'(time |"seconds": )[0-9.e-]+', r"\1T", line) for line in lines
                if line]

    assert shown(rest.splitlines()) == shown(l for l in block if not l.startswith(">"))


def test_subprocess_eof_exits_zero():
    e = Engine("--rules", "platform")
    e.send("1 rules\n2 " + pos_line(LEAD) + "\n3 solve time=5\n")
    code, rest, err = e.finish()
    assert code == 0 and err == ""
    replies = rest.split("\n\n")
    assert replies[0] == "=1 platform"
    assert replies[1].startswith("=2 to_move 0")
    assert replies[2].split("\n")[-1].startswith('=3 {"value": 3,')
    assert replies[3:] == [""]


def test_subprocess_undecodable_input_under_a_strict_utf8_stdin():
    """With PYTHONIOENCODING=utf-8 (strict errors) the engine still reads its input as
    UTF-8 with U+FFFD for bad bytes: it stopped with a UnicodeDecodeError before answering
    even the line before them."""
    r = subprocess.run([sys.executable, "-m", "guandan_core.cli", "engine"], cwd=PACKAGES,
                       env=cli_env(PYTHONIOENCODING="utf-8"), capture_output=True, timeout=30,
                       input=b"name\n\xff\xfe bad\nquit\n")
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout.decode("utf-8").split("\n\n") == [
        "= guandan-core", "? unknown command '\ufffd\ufffd' (see list_commands)", "=", ""]


def test_subprocess_unknown_rules_is_a_usage_error():
    r = subprocess.run([sys.executable, "-m", "guandan_core.cli", "engine", "--rules", "x"],
                       cwd=PACKAGES, env=cli_env(), input=b"", capture_output=True, timeout=30)
    assert r.returncode == 2 and b"unknown rules" in r.stderr and b"Traceback" not in r.stderr
    assert r.stdout == b""


def test_subprocess_reads_and_writes_utf8_whatever_the_locale_says():
    """PROTOCOL (Framing): one command per line, in UTF-8, whatever encoding the
    environment gives stdin and stdout (here ASCII): a Chinese command word is read as
    itself and quoted back in UTF-8."""
    r = subprocess.run([sys.executable, "-m", "guandan_core.cli", "engine"], cwd=PACKAGES,
                       env=cli_env(PYTHONIOENCODING="ascii"), capture_output=True, timeout=30,
                       input="\u724c\nquit\n".encode("utf-8"))
    assert (r.returncode, r.stderr) == (0, b"")
    assert r.stdout.decode("utf-8").split("\n\n") == [
        "? unknown command '\u724c' (see list_commands)", "=", ""]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")
def test_subprocess_ctrl_c_ends_it_with_status_130():
    """Ctrl-C ends the engine with the status 130 of an interrupted command (README, as
    for guandan solve) and, once serving, nothing on stderr (PROTOCOL)."""
    import signal
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "engine"],
                            cwd=PACKAGES, env=cli_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        proc.stdin.write(b"name\n")
        proc.stdin.flush()
        # (the reply and its blank line: serving now)
        assert [proc.stdout.readline() for _ in range(2)] == [b"= guandan-core\n", b"\n"]
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert (proc.returncode, out, err) == (130, b"", b"")


# twelve cards a seat (seed 5): its first probe runs for well over a minute with no line
# written (the first bound came after more than 40 s on the machine where this was chosen)
_LONG_SILENCE = {"level": "2", "hands": [
    ["H8", "CQ", "SQ", "C5", "DA", "SA", "S6", "D2", "DJ", "CT", "HA", "DA"],
    ["H2", "H4", "HK", "CK", "D6", "C5", "D8", "H9", "HJ", "D9", "D8", "HR"],
    ["H8", "S7", "S3", "SQ", "C2", "C6", "D3", "D9", "S9", "CJ", "D5", "H7"],
    ["D4", "C9", "D7", "SB", "HK", "DT", "ST", "D6", "C8", "HT", "C2", "SJ"]],
    "finished": [], "to_move": 0, "table": None}


@pytest.mark.skipif(not hasattr(select, "poll"), reason="select.poll")
def test_subprocess_a_client_gone_stops_the_solve():
    """PROTOCOL (Framing): after the end of input the solves read run on, but once the
    output's reader has gone too (a client that died closes both ends) they stop and the
    engine exits: a solve that wrote nothing for minutes ran on for nobody, holding a core
    and its table, until its reply failed."""
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", "engine"],
                            cwd=PACKAGES, env=cli_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(("position " + json.dumps(_LONG_SILENCE) + "\nsolve\n").encode())
        proc.stdin.flush()
        assert proc.stdout.readline().startswith(b"= to_move 0 cards [12,12,12,12]")
        assert proc.stdout.readline() == b"\n"
        proc.stdin.close()
        proc.stdout.close()
        started = time.monotonic()
        proc.wait(timeout=20)
        assert time.monotonic() - started < 10
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0 and proc.stderr.read() == b""


# ---------------------------------------------------------------------- sample

def test_sample_answers_what_guandan_sample_json_prints(engine):
    """`sample` values the moves of the seat to move over random deals of the hidden
    hands: exactly solve_sampled's answer, with the seed it used."""
    from solver.sampling import solve_sampled
    engine.handle(pos_line(BIG))
    got = json.loads(ok(engine.handle('sample deals=4 seed=9 known="3:SK; 1:D4" nodes=10000000')))
    expected = solve_sampled(BIG, 4, seed=9, known={3: "SK", 1: "D4"},
                             node_limit=10_000_000).to_json()
    assert got["seed"] == 9 and without_volatile(got) == without_volatile(expected)
    # a slice of a longer run: its deals are the run's, from deal `first` on
    got = json.loads(ok(engine.handle("sample deals=2 seed=9 first=2 nodes=10000000")))
    expected = solve_sampled(BIG, 2, seed=9, first=2, node_limit=10_000_000).to_json()
    assert got["deals"] == [[2, 4]] and without_volatile(got) == without_volatile(expected)
    got = json.loads(ok(engine.handle("7 sample deals=2"), "7"))
    assert got["seed"] == 0 and got["samples"] == got["solved"] == 2
    # the largest seed and node limit guandan sample takes
    big = json.loads(ok(engine.handle(f"sample deals=1 seed={2**63 - 1} nodes={2**63 - 1}")))
    assert big["seed"] == 2**63 - 1 and big["solved"] == 1
    # and the last deal number (first + deals is 2**63 at most, that bound included)
    last = json.loads(ok(engine.handle(f"sample deals=1 first={2**63 - 1}")))
    assert last["deals"] == [[2**63 - 1, 2**63]] and last["solved"] == 1
    # a limit that stops every deal: none counted
    got = json.loads(ok(engine.handle("sample deals=2 nodes=5")))
    assert (got["solved"], got["moves"], got["best"]) == (0, [], None)


# PROTOCOL.md, solve: what `time=S` reads, as the refusals say it
_SECONDS = ("a finite decimal number of seconds, 0 or more, of at most 18 digits before the "
            "point (leading zeros apart) and 3 in the exponent")


@pytest.mark.parametrize("line, reason", [
    ("sample deals=0", "sample: deals must be a whole number from 1 to 1,000,000, not '0'"),
    (f"sample first={2**63 - 1} deals=2", "sample: first + deals must be at most 2**63 (deal "
                                          f"numbers are below it), not {2**63 - 1} + 2"),
    ("sample deals=1000001", "not '1000001'"),
    ("sample seed=-1", "sample: seed must be a whole number from 0"),
    ("sample first=-1", "sample: first must be a whole number from 0"),
    ("sample first=2 first=3", "first"),
    (f"sample seed={2**63}", f"sample: seed must be a whole number from 0 to {2**63 - 1:,}"),
    (f"sample nodes={2**63}", "sample: nodes must be a whole number from 0"),
    ("sample known=1:S3,HA,D7,C4,S8,HQ,S4", "sample: known: seat 1 holds 6 cards, not the 7"),
    ("sample known=1:HR,HR", "sample: known: HR is not among the cards hidden from seat 0"),
    ("sample time=x", f"sample: time must be {_SECONDS}, not 'x'"),
    # inf is 0 or more: the message says why it is refused (solver.solve takes it as no limit)
    ("solve time=inf", f"solve: time must be {_SECONDS}, not 'inf'"),
    ("sample time=1e999", f"sample: time must be {_SECONDS}, not '1e999'"),
    # the digits read are bounded, and the message says how (it called 1e18 and a second
    # written with 19 digits not finite numbers of 0 or more)
    ("solve time=1000000000000000000", f"solve: time must be {_SECONDS}, not "
                                       "'1000000000000000000'"),
    ("sample time=10000000000000000000.5", f"sample: time must be {_SECONDS}, not "
                                          "'10000000000000000000.5'"),
    ("solve time=1e0003", f"solve: time must be {_SECONDS}, not '1e0003'"),
    ("solve every=0", f"solve: every must be {_SECONDS}, and not 0, not '0'"),
    ("solve every=", f"solve: every must be {_SECONDS}, and not 0, not ''"),
    ("solve every=-1", f"solve: every must be {_SECONDS}, and not 0, not '-1'"),
    ("solve every=1 every=2", "solve: option 'every' given twice"),
    ("sample every=0", f"sample: every must be {_SECONDS}, and not 0, not '0'"),
    ("sample every=1 every=1", "sample: option 'every' given twice"),
    ("solve often", "solve: unknown option 'often' (usage: solve [time=S] [nodes=N] [all] "
                    "[at_least=V] [every=S])"),
    ("sample nodes=1.5", "sample: nodes must be a whole number"),
    ("sample deep", "sample: unknown option 'deep' (usage: sample [deals=N]"),
    ("sample all", "sample: unknown option 'all'"),
    ("sample seed=1 seed=2", "sample: option 'seed' given twice"),
    # PROTOCOL.md, solve and analyze: each option once too; a time has no sign, not even -0
    ("solve all all", "solve: option 'all' given twice"),
    ("solve time=1 time=2", "solve: option 'time' given twice"),
    ("analyze S3 level=7 level=8", "analyze: option 'level' given twice"),
    ("solve time=-0", f"solve: time must be {_SECONDS}, not '-0'"),
    ("sample known=5:S3", "sample: known: '5:S3' is not SEAT:CARDS"),
    ('sample known="1:XX"', "sample: known: seat 1: unknown card 'XX'"),
    ("sample known=0:C5", "0 is not a seat whose hand is hidden from seat 0"),
    ('sample "deals=2', "sample: cannot read the arguments"),
    # PROTOCOL.md, sample: every option is KEY=VALUE; a key alone is no option
    ("sample deals", "sample: unknown option 'deals' (usage: sample [deals=N]"),
    ("sample known", "sample: unknown option 'known'"),
])
def test_sample_refuses_bad_options_by_name(engine, line, reason):
    engine.handle(pos_line(BIG))
    assert reason in fail(engine.handle(line))
    assert engine.position.to_json() == BIG


def test_sample_needs_a_position_still_in_play(engine):
    assert fail(engine.handle("sample")).startswith("no position set")
    over = {"level": "2", "hands": [[], ["S3"], [], ["S4"]], "finished": [0, 2],
            "to_move": None, "table": None}
    engine.handle(pos_line(over))
    assert fail(engine.handle("sample")) == "the hand is over: nothing to sample"


def test_sample_every_streams_each_deal_and_what_its_search_still_does(engine):
    """PROTOCOL.md, sample: with ``every=S``, an ``info deal`` line as each deal is done
    and ``info working ... deal D`` lines while it is searched, all before its deal line;
    the reply is the same as without; without every=S, no info lines."""
    from guandan_core.cli_solve import EXAMPLE_POSITION
    engine.handle(pos_line(EXAMPLE_POSITION))
    plain = engine.handle("sample deals=4 seed=2")
    assert plain.count("\n") == 2 and plain.startswith("= {")
    seen = []
    reply = engine.handle("sample deals=4 seed=2 every=0.000001", emit=seen.append)
    assert without_volatile(json.loads(reply.split("\n")[-3][2:])) == \
        without_volatile(json.loads(plain[2:]))
    infos = [parse_info(line) for line in seen]
    deals = [i["deal"] for i in infos if "counted" in i]
    assert sorted(deals) == [0, 1, 2, 3]
    working = [n for n, i in enumerate(infos) if "working" in i]
    assert working
    for n in working:
        deal = infos[n]["deal"]
        assert n < next(k for k, i in enumerate(infos) if i.get("deal") == deal and
                        "counted" in i)
        assert infos[n]["working"] in ("value", "best", "moves")

def test_sample_without_options_solves_twenty_deals_of_seed_0(engine):
    """PROTOCOL.md, sample: deals=N defaults to 20, seed=S to 0 and first=F to 0, so the
    reply's `deals` are the seed's deals [0, 20), every one solved (seats 1 and 3 share
    three hidden cards here: each deal is a tiny endgame)."""
    engine.handle(pos_line(LEAD))
    got = json.loads(ok(engine.handle("sample")))
    assert (got["seed"], got["deals"], got["node_limit"]) == (0, [[0, 20]], None)
    assert got["samples"] == got["solved"] == 20
    assert all(sum(m["values"].values()) == 20 for m in got["moves"])


def test_subprocess_stop_ends_a_running_sample(proc):
    """`stop` ends a running `sample` as it ends a solve: the deals being solved stop, the
    others are not started, and the reply counts none of them."""
    infos, got = _stopped_on_a_whole_deal(proc, "sample deals=3", 1.0)
    # the deals being searched (one a core) are counted in samples, not the one never started
    assert infos == [] and got["solved"] == 0 and 1 <= got["samples"] <= 2


# ------------------------------------------------------- details of the commands

@pytest.mark.parametrize("position, line, reason", [
    # PROTOCOL.md, Commands: known_command takes one NAME; none is a usage error, not "false"
    (None, "known_command", "usage: known_command NAME, not ''"),
    # a command that takes no arguments quotes them, before asking for a position
    (None, "showposition extra", "showposition takes no arguments, not 'extra'"),
    (None, "undo", "no position set (use: position JSON)"),
    # sample's deals as guandan sample --deals takes them: at most 1,000,000 (the options
    # are read before the position is asked for, so no search starts)
    (None, "sample deals=1000001",
     "sample: deals must be a whole number from 1 to 1,000,000, not '1000001'"),
    (None, "analyze S3 S4 foo=1",
     "analyze: unknown option 'foo' (known: level, played, runners_up)"),
    # PROTOCOL.md, analyze: runners_up is a whole number of at most 18 digits; 19 are refused
    (None, "analyze S3 runners_up=" + "1" * 19,
     "analyze: runners_up must be a whole number 0 or more, of at most 18 digits, "
     "not '" + "1" * 19 + "'"),
    # bad JSON in a move is the command's refusal, named by the command
    (LEAD, 'play ["Single"', "play: not valid JSON: "),
    # PROTOCOL.md, Framing, Ending: a command that takes no arguments quotes the ones it got
    (None, "clear_table x", "clear_table takes no arguments, not 'x'"),
    # PROTOCOL.md, play: MOVE is a platform triple; a fourth item is no triple
    (LEAD, 'play ["Single","3",["S3"],0]',
     'play: expected a platform triple [type, rank, cards], got ["Single","3",["S3"],0]'),
    # PROTOCOL.md, analyze: the arguments are split as shlex.split splits them, and a
    # refusal says why they cannot be (shlex's own reason)
    (None, 'analyze "S3', "analyze: cannot read the arguments (No closing quotation)"),
    (None, "analyze S3\\", "analyze: cannot read the arguments (No escaped character)"),
])
def test_refusals_name_the_command_and_what_is_wrong(engine, position, line, reason):
    """Each refusal's reason, in full (the JSON parser's own words left out): it names the
    command and quotes the bad value, as PROTOCOL.md, Framing, Errors, says."""
    if position is not None:
        ok(engine.handle(pos_line(position)))
    assert fail(engine.handle(line)).startswith(reason)
    assert engine.position is None or engine.position.to_json() == position


def test_rules_of_a_rules_object_are_named_as_the_preset_they_equal():
    """EngineProtocol's docstring: given a Rules object, `rules` answers the name of the
    preset it equals (it answered custom even then, a name `rules NAME` refuses), and
    `custom` for one that equals no preset."""
    from guandan_core.rules import PRESET_NAMES
    for name in PRESET_NAMES:
        engine = EngineProtocol(Rules.by_name(name))
        assert engine.handle("rules") == f"= {name}\n\n"
        assert engine.handle(f"rules {name}") == "=\n\n"
    assert EngineProtocol("standard").handle("rules") == "= standard\n\n"
    odd = Rules.platform().replace(long_sequences=True)
    assert odd not in [Rules.by_name(name) for name in PRESET_NAMES]
    assert EngineProtocol(odd).handle("rules") == "= custom\n\n"


@pytest.mark.parametrize("rules", [5, 1.5, [], True])
def test_rules_that_are_no_rules_nor_a_name_are_refused_by_the_constructor(rules):
    """PROTOCOL.md (EngineProtocol(rules=None)): rules is a Rules or a preset name;
    anything else is a TypeError naming it, from the constructor (it was taken as custom
    rules, and every later `position` failed with an internal error)."""
    with pytest.raises(TypeError) as caught:
        EngineProtocol(rules)
    assert str(caught.value) == f"rules must be a Rules, a preset name or None, not {rules!r}"


def test_node_counts_up_to_the_solvers_largest_are_accepted(engine):
    """PROTOCOL.md, solve: nodes=N takes a whole number from 0 to 2**63 - 1, as
    solver.solve, sample's nodes and guandan solve --node-limit do (it took at most 18
    digits, so EngineProcess.solve refused budgets solve() takes); the largest is a
    budget like any other (a tiny position solves well within it)."""
    from solver import solve
    engine.handle(pos_line(LEAD))
    for nodes in (2**63 - 1, 10**18 - 1):
        _, final = split_solve_reply(engine.handle(f"solve nodes={nodes}"))
        got = json.loads(final)
        assert got["exact"] is True and got["value"] == solve(LEAD).value
    for bad in (2**63, "1" * 20, "-1", "+5"):
        assert fail(engine.handle(f"solve nodes={bad}")) == (
            f"solve: nodes must be a whole number from 0 to 9,223,372,036,854,775,807, "
            f"not '{bad}'")


def test_scored_counts_the_moves_answered_under_at_least(engine):
    """With `all` and at_least, each move's value is null and `reaches` answers it
    (PROTOCOL.md, solve): those moves are scored, and `info scored` counts them (it
    counted only moves with a value: 0)."""
    from solver import solve
    obj = {"level": "2", "hands": [["SA", "S3"], ["S5"], [], ["S4"]], "finished": [2],
           "to_move": 0, "table": None}
    engine.handle(pos_line(obj))
    infos, final = split_solve_reply(engine.handle("solve all at_least=1"))
    expected = solve(Position.from_json(obj), all_moves=True, at_least=1)
    answered = [m for m in expected.to_json()["moves"] if m["reaches"] is not None]
    assert len(answered) == 2 == len([i for i in infos if "move" in i])
    assert infos[-1]["scored"] == len(answered)


def test_info_times_are_seconds_since_the_command_began(engine):
    """The `time` of an info line is the seconds the solve has taken so far (PROTOCOL.md,
    solve): no more than the wall-clock time of the whole command. Out of reach, at_least
    sends no best line and the value line is written after the search; with `all` the
    last line is `scored`."""
    import time
    for position, line in ((FOLLOW, "solve at_least=3"), (LEAD, "solve all")):
        engine.handle(pos_line(position))
        began = time.perf_counter()
        reply = engine.handle(line)
        took = time.perf_counter() - began
        infos, _ = split_solve_reply(reply)
        assert infos and any("value" in i for i in infos)
        # every line but a move's score carries the time
        timed = [i for i in infos if "move" not in i]
        assert timed and all(0 <= i["time"] <= took for i in timed), (line, infos, took)
        if line == "solve at_least=3":      # (out of reach: no best line, value last)
            assert not any("best" in i for i in infos) and "value" in infos[-1], infos
        else:
            assert "scored" in infos[-1], infos


def test_analyze_lists_five_runners_up_by_default(engine):
    """PROTOCOL.md, analyze: `runners_up=N` ... The default is 5. The hand has more than
    five runner-up splits (six are listed when asked for)."""
    hand = "analyze S3 S4 S5 S6 S7 H7 SB SB level=7"
    assert len(json.loads(ok(engine.handle(hand + " runners_up=6")))["runner_up"]) == 6
    default = json.loads(ok(engine.handle(hand)))
    assert len(default["runner_up"]) == 5
    assert default == json.loads(ok(engine.handle(hand + " runners_up=5")))


def test_lines_after_quit_are_not_read_by_serve():
    """PROTOCOL.md, Ending: lines after `quit` are not read, so a `stop` after it stops
    nothing: the solve before it runs to its time budget."""
    out = io.StringIO()
    script = _whole_deal_line() + "\n1 solve time=1\n2 quit\n3 stop\n"
    assert EngineProtocol().serve(io.StringIO(script), out) == 0
    replies = out.getvalue().split("\n\n")
    solved = json.loads(replies[1].split("\n")[-1][3:])
    assert solved["seconds"] >= 0.9 and solved["exact"] is False
    assert replies[2:] == ["=2", ""]


def test_the_reader_stops_reading_when_serve_returns(monkeypatch):
    """When serve() returns (its output is closed), its input reader reads no further: a
    program that goes on would otherwise have the rest of its input consumed."""
    monkeypatch.setattr(protocol, "READ_AHEAD", 2 * (5 + 256))

    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError

    stdin = io.StringIO("name\n" * 20_000)
    before = set(threading.enumerate())
    assert EngineProtocol().serve(stdin, Closed()) == 0
    for t in set(threading.enumerate()) - before:
        if t.name == "guandan-engine-input":
            t.join(timeout=5)
            assert not t.is_alive()
    assert stdin.tell() < 100 * len("name\n")      # a few lines read ahead, not 20,000


def test_solve_all_names_the_equivalent_moves(engine):
    """PROTOCOL.md, solve: a move whose suit-only twins have its value lists them as
    `equivalent`, in its `info move` line as in the reply. S3 and H3 (not the level's
    heart at level 2) differ only in suit."""
    from solver import solve
    obj = {"level": "2", "hands": [["S3", "H3", "S9"], ["S5"], [], ["S4"]],
           "finished": [2], "to_move": 0, "table": None}
    engine.handle(pos_line(obj))
    infos, final = split_solve_reply(engine.handle("solve all"))
    expected = solve(Position.from_json(obj), all_moves=True).to_json()["moves"]
    grouped = {json.dumps(m["move"]): m.get("equivalent") for m in expected}
    single = [i for i in infos if i.get("move", [None])[0] == "Single"
              and i["move"][1] == "3"]
    assert len(single) == 1 and single[0]["equivalent"] == [["Single", "3", ["H3"]]]
    for i in infos:
        if "move" in i:
            assert i.get("equivalent") == grouped[json.dumps(i["move"])]


def test_a_new_position_clears_the_undo_history(engine):
    """PROTOCOL.md, State and undo: undo goes back no further than the last `position`
    command, even to a position played from before it."""
    engine.handle(pos_line(LEAD))
    ok(engine.handle('play ["Single","3",["S3"]]'))
    engine.handle(pos_line(LEAD))
    assert fail(engine.handle("undo")).startswith("nothing to undo")
    assert engine.position.to_json() == LEAD


def test_every_line_written_ends_in_a_newline_alone_and_holds_no_other_break():
    """PROTOCOL.md, Output: every line ends in \\n alone, and no character any common line
    reader splits at (\\r, \\v, \\f, \\x1c-\\x1e, \\x85, U+2028, U+2029: Python's
    splitlines, Java's readLine) is written, whatever the input quoted in a reason or
    JSON holds."""
    breaks = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    templates = ["1 name a{c}b", "2 analyze S3 Z{c}4", '3 position {"level": "7{c}"}',
                 '4 play ["Single", "3", ["S3{c}"]]', "5 rules x{c}y", "6 sol{c}ve"]
    lines = [t.replace("{c}", c) for t in templates for c in breaks]
    lines += ['7 position {"level": "2", "hands": [["S3"], ["S4"], ["S5"], ["S6"]], '
              '"finished": [], "to_move": 0, "table": null}', "8 moves", "9 solve all",
              "10 showposition", "11 list_commands"]
    out = io.StringIO()
    assert EngineProtocol().serve(io.StringIO("\n".join(lines) + "\n"), out) == 0
    text = out.getvalue()
    assert text.endswith("\n\n") and not any(c in text for c in breaks)
    replies = [line for line in text.split("\n") if line[:1] in ("=", "?")]
    assert len(replies) == len(lines)
    assert all(r.startswith("?") for r in replies[:-5]) and \
        all(r.startswith("=") for r in replies[-5:])
