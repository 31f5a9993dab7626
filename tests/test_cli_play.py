"""Tests of ``guandan play`` and ``guandan replay`` (guandan_core.cli_play): the event
formats, determinism, the log checker and error handling (RULES.md sec. 6-9)."""

import copy as copy_module
import io
import json
import pickle
import random
import re
import subprocess
import sys

import pytest

from cli_process import PACKAGES, cli_env
from guandan_core import cli_play
from guandan_core.match import Match, MatchRules
from guandan_core.players import GreedyPlayer, RandomPlayer



def _cli_main():
    """The package CLI's main (play and replay are its sub-commands: it used to fall back
    to cli_play.main, which would have hidden them missing from ``guandan``)."""
    from guandan_core import cli
    return cli.main


def run(argv, capsys):
    try:
        code = _cli_main()(argv)
    except SystemExit as exc:       # a usage error found by argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def play_json(capsys, *extra, hands=3, seed=4, players="greedy,random,greedy,random"):
    code, out, err = run(["play", "--players", players, "--hands", str(hands),
                          "--seed", str(seed), "--json", *extra], capsys)
    assert code == 0 and err == ""
    return [json.loads(line) for line in out.splitlines()]


def test_play_json_event_formats(capsys):
    """The --json events have exactly the documented fields."""
    events = play_json(capsys, hands=12)
    keys = {"deal": {"event", "hand", "level", "hands"},
            "tribute": {"event", "from", "to", "card"},
            "return": {"event", "from", "to", "card"},
            "resist": {"event", "seats"},
            "play": {"event", "seat", "action"},
            "end": {"event", "order", "levels", "winner"}}
    assert events[0] == {"event": "rules", **MatchRules.standard().to_json()}
    seen = set()
    for e in events[1:]:
        assert set(e) == keys[e["event"]]
        seen.add(e["event"])
    assert {"deal", "play", "end", "tribute", "return"} <= seen
    first = events[1]
    assert first["event"] == "deal" and first["hand"] == 1 and first["level"] == "2"
    assert [len(h) for h in first["hands"]] == [27] * 4
    passes = [e for e in events if e["event"] == "play" and e["action"][0] == "PASS"]
    assert passes and all(e["action"] == ["PASS", "PASS", "PASS"] for e in passes)
    for e in events:
        if e["event"] == "play" and e["action"][0] != "PASS":
            assert len(e["action"]) == 3 and isinstance(e["action"][2], list)
        if e["event"] == "end":
            assert sorted(e["order"]) == [0, 1, 2, 3]
            assert len(e["levels"]) == 2 and e["winner"] in (None, 0, 1)
    assert sum(e["event"] == "deal" for e in events) == 12
    assert sum(e["event"] == "end" for e in events) == 12


def test_play_is_deterministic_for_a_seed(capsys):
    a = play_json(capsys, seed=9)
    b = play_json(capsys, seed=9)
    c = play_json(capsys, seed=10)
    assert a == b and a != c


def test_play_new_match_after_win(capsys):
    """RULES 8: after a match is won the next hand is a new match at level 2."""
    events = play_json(capsys, hands=40, seed=3, players="greedy,random,greedy,random")
    ends = [i for i, e in enumerate(events) if e["event"] == "end" and e["winner"] is not None]
    assert ends, "expected a won match"
    nxt = events[ends[0] + 1]
    assert nxt["event"] == "deal" and nxt["level"] == "2"
    assert events[ends[0] + 2]["event"] == "play"      # no tribute in a new match


def test_play_readable_log(capsys):
    code, out, err = run(["play", "--players", "greedy,greedy,random,random", "--hands",
                          "2", "--seed", "1"], capsys)
    assert code == 0 and err == ""       # stderr is not a TTY: no progress bar
    assert "== hand 1, level 2 ==" in out and "leads" in out and "end: order" in out
    code, out, _ = run(["play", "--hands", "5", "--seed", "1", "--summary"], capsys)
    lines = out.splitlines()
    assert code == 0 and [line.split(" (")[0] for line in lines] == \
        [f"hand {i}" for i in range(1, 6)]                     # one line a hand
    assert out.startswith("hand 1 (level 2)")


def test_play_text_log_tells_what_the_json_log_tells(capsys):
    """The readable log and --summary of a run say what --json says for the same run, line
    for line: the hands dealt, resistance, tributes and returns, the leader, every play or
    pass, each seat going out at its place in the end's order, the winning team and its
    gain (RULES sec. 6: 3 levels if the partner finished 2nd, 2 if 3rd, 1 if last), the
    levels and a won match (test_play_readable_log looks for a few words only)."""
    events = play_json(capsys, hands=40, seed=3)
    assert {"resist", "tribute", "return"} <= {e["event"] for e in events}
    team = ("team 0+2", "team 1+3")
    full, summary = [], []
    for i, e in enumerate(events):
        kind = e["event"]
        if kind == "deal":
            hand, level = e["hand"], e["level"]
            order = next(x["order"] for x in events[i:] if x["event"] == "end")
            left, leader = [len(h) for h in e["hands"]], None
            full.append(f"== hand {e['hand']}, level {level} ==")
            full += [f"  seat {seat}: {' '.join(h)}" for seat, h in enumerate(e["hands"])]
        elif kind == "resist":
            seats = e["seats"]
            who = (f"seat {seats[0]} holds" if len(seats) == 1
                   else f"seats {' and '.join(map(str, seats))} hold")
            full.append(f"  resist: {who} both big jokers, no tribute")
        elif kind in ("tribute", "return"):
            back = " back" if kind == "return" else ""
            full.append(f"  {kind}: seat {e['from']} gives {e['card']}{back} "
                        f"to seat {e['to']}")
        elif kind == "play":
            seat, (mtype, rank, cards) = e["seat"], e["action"]
            if leader is None:
                leader = seat
                full.append(f"  seat {seat} leads")
            if mtype == "PASS":
                full.append(f"  seat {seat}: pass")
                continue
            left[seat] -= len(cards)
            note = ""
            if left[seat] == 0:
                note = f"   -> seat {seat} is out ({('1st', '2nd', '3rd')[order.index(seat)]})"
            full.append(f"  seat {seat}: {mtype} {rank}: {' '.join(cards)}{note}")
        elif kind == "end":
            winners = e["order"][0] & 1
            gain = 4 - e["order"].index(e["order"][0] ^ 2)
            result = (f"order {' '.join(map(str, e['order']))}, {team[winners]} wins +{gain}; "
                      f"levels {team[0]} {e['levels'][0]}, {team[1]} {e['levels'][1]}")
            full.append("  end: " + result)
            summary.append(f"hand {hand} (level {level}): " + result)
            if e["winner"] is not None:
                full.append(f"*** {team[e['winner']]} wins the match ***")
                summary.append(full[-1])
    assert hand == 40 and any(line.startswith("***") for line in summary)
    argv = ["play", "--players", "greedy,random,greedy,random", "--hands", "40", "--seed", "3"]
    assert run(argv, capsys) == (0, "".join(line + "\n" for line in full), "")
    assert run(argv + ["--summary"], capsys) == (0, "".join(line + "\n" for line in summary), "")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_play_shows_progress_on_a_terminal(capsys, monkeypatch):
    """A long run whose stderr is a terminal counts its hands there, each hand overwriting
    the last count, the bar full and the line ended at the end; stdout is the same log. A
    shorter run, or one whose stderr is no terminal, shows nothing."""
    total = cli_play._PROGRESS_MIN_HANDS        # (the shortest run that shows it)
    argv = ["play", "--hands", str(total), "--seed", "8", "--summary"]
    code, log, err = run(argv, capsys)
    assert code == 0 and err == "" and len(log.splitlines()) >= total
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run(argv, capsys) == (0, log, "")
    reports = terminal.getvalue().split("\r")
    assert reports[0] == "" and len(reports) == total + 1      # one report a hand
    fills = []
    for done, report in enumerate(reports[1:], 1):
        bar, count = report.split("] ")
        assert count == f"{done}/{total} hands" + ("\n" if done == total else "")
        assert bar[0] == "[" and bar[1:] == "#" * bar.count("#") + "." * bar.count(".")
        assert len(bar) == len(reports[1].split("] ")[0])
        fills.append(bar.count("#"))
    assert fills == sorted(fills) and "." not in bar        # filling up, full at the end
    terminal.seek(0), terminal.truncate()
    argv[2] = str(total - 1)
    assert run(argv, capsys)[0] == 0 and terminal.getvalue() == ""


def test_play_shows_no_progress_when_the_log_is_on_the_terminal(capsys, monkeypatch):
    """With stdout on the terminal too, no bar: its line stays open for the next count, so
    the next hand's line was written onto its end ("... 1/20 handshand 2 (level 3): ...")."""
    argv = ["play", "--hands", str(cli_play._PROGRESS_MIN_HANDS), "--seed", "8", "--summary"]
    log = run(argv, capsys)[1]
    terminal, screen = _Terminal(), _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(sys, "stdout", screen)
    assert run(argv, capsys)[0] == 0
    assert terminal.getvalue() == "" and screen.getvalue() == log


def test_play_interrupted_ends_the_progress_line(capsys, monkeypatch):
    """Ctrl-C during a long run ends the bar's line, so that 'interrupted' has its own."""
    from guandan_core import match as match_module
    played = []
    real = match_module.Match.play_hand

    def play_hand(self):
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(real(self))

    monkeypatch.setattr(match_module.Match, "play_hand", play_hand)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    argv = ["play", "--hands", str(cli_play._PROGRESS_MIN_HANDS), "--seed", "8", "--summary"]
    assert run(argv, capsys)[0] == 130
    lines = terminal.getvalue().split("\n")
    assert lines[0].endswith(f" 3/{cli_play._PROGRESS_MIN_HANDS} hands")
    assert lines[1:] == ["guandan play: interrupted", ""]


def test_play_platform_rules(capsys):
    events = play_json(capsys, "--rules", "platform", hands=4)
    assert events[-1]["event"] == "end"


@pytest.mark.parametrize("name", ["no-sf-bomb", "long-sequences"])
def test_play_and_replay_take_every_rule_set(name, tmp_path, capsys):
    """RULES 9: play and replay take every rule set the other commands take (the
    combination presets with the standard match options), and the log names it."""
    events = play_json(capsys, "--rules", name, hands=3, seed=2)
    assert events[0] == {"event": "rules", **MatchRules.by_name(name).to_json()}
    assert events[-1]["event"] == "end"
    path = write(tmp_path, events)
    code, out, err = run(["replay", path], capsys)
    assert code == 0 and out.startswith("valid"), out + err
    code, out, err = run(["replay", path, "--rules", name], capsys)
    assert code == 0 and out.startswith("valid"), out + err
    code, out, err = run(["replay", path, "--rules", "standard"], capsys)
    assert code == 2 and f"played under the {name} rules" in err


def test_play_first_leader_card(capsys):
    """RULES sec. 8, 9: --first-leader CARD: the seat holding the card (the first in seat
    order 0..3 if two seats hold it) leads the first hand of every match; a seed fixes
    the run; the log replays as valid."""
    events = play_json(capsys, "--first-leader", "H2", hands=40, seed=3)
    assert events == play_json(capsys, "--first-leader", "h2", hands=40, seed=3)
    starts = 0
    for i, e in enumerate(events):
        first_of_match = e["event"] == "deal" and (
            events[i - 1]["event"] == "rules" or events[i - 1]["winner"] is not None)
        if first_of_match:
            holder = next(s for s, cards in enumerate(e["hands"]) if "H2" in cards)
            assert events[i + 1] == {"event": "play", "seat": holder,
                                     "action": events[i + 1]["action"]}
            starts += 1
    assert starts >= 2, "expected a won match and a new one"
    assert events != play_json(capsys, hands=40, seed=3)     # default: random leader
    assert play_json(capsys, "--first-leader", "RANDOM", hands=3, seed=3) == \
        play_json(capsys, hands=3, seed=3)                  # (any case, as the cards)
    lines = [json.dumps(e) for e in events]
    assert cli_play.check_log(lines).startswith("valid")
    # replay checks that leader too (it checked only leaders after a tribute): the same
    # log under another agreed card is refused at the first hand's first play
    first_deal = next(e for e in events if e["event"] == "deal")
    other = next(card for card in ("SB", "HR", "S3", "D9")
                 if not any(card in h for h in first_deal["hands"][:first_deal_leader(events)
                                                                   + 1]))
    tampered = [dict(e, first_leader=other) if e["event"] == "rules" else e for e in events]
    with pytest.raises(cli_play.ReplayError, match="leads hand 1, but seat [0-3] must lead"):
        cli_play.check_log([json.dumps(e) for e in tampered])
    # and so in a log cut short within hand 1, deals and plays alone (it read as valid)
    cut = tampered[:next(i for i, e in enumerate(tampered) if e["event"] == "deal") + 3]
    assert {e["event"] for e in cut} == {"rules", "deal", "play"}
    with pytest.raises(cli_play.ReplayError, match="leads hand 1, but seat [0-3] must lead"):
        cli_play.check_log([json.dumps(e) for e in cut])
    cut = events[:len(cut)]
    assert cli_play.check_log([json.dumps(e) for e in cut]).startswith("valid")


def first_deal_leader(events) -> int:
    deal = next(i for i, e in enumerate(events) if e["event"] == "deal")
    return events[deal + 1]["seat"]


def test_play_first_leader_bad_value(capsys):
    """RULES sec. 9: a bad --first-leader value: one stderr line naming it, exit 2."""
    code, out, err = run(["play", "--first-leader", "Q7", "--seed", "1"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "'Q7'" in err
    assert "argument --first-leader" in err and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["play", "--players", "random,alphago,random,random"], "unknown player"),
    (["play", "--players", "random,random"], "4 comma-separated"),
    # five names, or a blank one: the value named
    (["play", "--players", "random,random,random,random,random"],
     "--players needs 4 comma-separated names, got 'random,random,random,random,random'"),
    (["play", "--players", "random, ,random,random"],
     "--players needs 4 comma-separated names, got 'random, ,random,random'"),
    (["play", "--hands", "-1"], "--hands"),
    (["play", "--hands", "0"], "--hands"),
    # refused while parsing, before the bad --players (a run of 10**9 hands never starts)
    (["play", "--hands", "1000000000", "--players", "random"], "--hands"),
    (["play", "--seed", "-1"], "--seed"),
    (["play", "--seed", str(10**30)], "--seed"),
])
def test_play_bad_input(capsys, argv, message):
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "Traceback" not in err


# --- replay ---------------------------------------------------------------------------

@pytest.fixture
def log_file(tmp_path, capsys):
    events = play_json(capsys, hands=15, seed=6)
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path, events


def match_events(rules, hands, seed=2, player=RandomPlayer):
    """The events of a Match of four ``player`` under ``rules``, ``hands`` hands."""
    events = []
    Match([player(seat) for seat in range(4)], rules, seed=seed,
          on_event=events.append).play(hands)
    return events


def write(tmp_path, events, name="bad.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def test_replay_valid_log(log_file, capsys):
    path, events = log_file
    code, out, err = run(["replay", str(path)], capsys)
    assert code == 0 and out.startswith("valid") and err == ""
    plays = sum(e["event"] == "play" for e in events)
    assert f"{len(events)} events, 15 hands, {plays} plays checked" in out
    # a one-way iterator of lines is read twice as well as a list
    lines = [json.dumps(e) for e in events]
    assert cli_play.check_log(iter(lines)) == cli_play.check_log(lines) == out.strip()


def test_replay_plays_only_log(tmp_path, capsys):
    """A log of deal and play events only is checked hand by hand (here tribute off)."""
    events = match_events(MatchRules.standard().replace(tribute=False), 4)
    only = [e for e in events if e["event"] in ("deal", "play")]
    code, out, _ = run(["replay", write(tmp_path, only)], capsys)
    assert code == 0 and "4 hands" in out


def test_replay_reads_the_rules_from_the_log(tmp_path, capsys):
    """RULES 9: a log names its rules in its first line, so replay checks a platform log
    (win at A with the partner 2nd only, drop after 2 failures) without being told, and
    a log of any other options too; a --rules that contradicts the log is refused."""
    events = play_json(capsys, "--rules", "platform", hands=60, seed=6)
    assert events[0] == {"event": "rules", **MatchRules.platform().to_json()}
    # (seed 6: hands at A whose first out's partner is 3rd, which win the game under the
    # standard rules but not the platform's; seed 5's log had none, and a replay under
    # the standard reading of A passed)
    levels = [e["level"] for e in events if e["event"] == "deal"]
    orders = [e["order"] for e in events if e["event"] == "end"]
    assert any(level == "A" and order[2] == order[0] ^ 2
               for level, order in zip(levels, orders))
    path = write(tmp_path, events)
    code, out, err = run(["replay", path], capsys)
    assert code == 0 and out.startswith("valid") and err == "", out + err
    code, out, err = run(["replay", path, "--rules", "platform"], capsys)
    assert code == 0 and out.startswith("valid")
    code, out, err = run(["replay", path, "--rules", "standard"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "played under the platform rules" in err and "standard" in err
    # without its first line the log is read under --rules, as before
    code, out, err = run(["replay", write(tmp_path, events[1:]), "--rules", "platform"], capsys)
    assert code == 0 and out.startswith("valid")

    custom = MatchRules.standard().replace(tribute_first_last=False, fail_at_a=3,
                                           lead_after_tribute="first", first_leader="SA")
    events = match_events(custom, 30)
    assert cli_play.check_log([json.dumps(e) for e in events]).startswith("valid")
    # and it checks their leader after a tribute: the last hand's first out, not the payer
    i = _first(events, lambda e: e["event"] == "return")
    i += _first(events[i:], lambda e: e["event"] == "play")
    tampered = events[:i] + [dict(events[i], seat=(events[i]["seat"] + 1) % 4)] + events[i + 1:]
    with pytest.raises(cli_play.ReplayError, match=f"event {i + 1} .*must lead"):
        cli_play.check_log([json.dumps(e) for e in tampered])
    with pytest.raises(cli_play.ReplayError) as caught:   # read under the standard rules
        cli_play.check_log([json.dumps(e) for e in events[1:]])
    # it crosses a process boundary whole (its __init__ takes three arguments, which
    # pickle's default did not pass back: a worker raising it broke the pool)
    error = caught.value
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.number, copy.line, copy.reason) == \
        (type(error), str(error), error.number, error.line, error.reason)
    # with what was added since (a note, an attribute, another message), which the three
    # arguments alone left out
    error.tag = "worker 3"
    error.args = ("worker 3: " + error.args[0],)
    if hasattr(error, "add_note"):
        error.add_note("while replaying")
    for again in (pickle.loads(pickle.dumps(error)), copy_module.copy(error)):
        assert (str(again), vars(again)) == (str(error), vars(error))


def test_replay_rules_event_must_be_first_and_well_formed(log_file, tmp_path, capsys):
    _, events = log_file
    for bad, words in ((events[1:2] + events[0:1] + events[2:], "comes first"),
                       ([dict(events[0], tribute="yes")] + events[1:], "tribute"),
                       ([dict(events[0], speed=3)] + events[1:], "unknown 'speed'")):
        code, out, err = run(["replay", write(tmp_path, bad)], capsys)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert words in err, err


def test_replay_notes_a_missing_end_event(log_file, tmp_path, capsys):
    """A log cut after the last play of a hand but before its end event is consistent so
    far; the summary says the end event is missing."""
    _, events = log_file
    assert events[-1]["event"] == "end"
    code, out, _ = run(["replay", write(tmp_path, events[:-1])], capsys)
    assert code == 0 and out.startswith("valid") and "hand 15 has no end event" in out
    # cut in the middle of a hand, or right after its deal: the hand is unfinished
    last_deal = max(i for i, e in enumerate(events) if e["event"] == "deal")
    for cut in (last_deal + 5, last_deal + 1):
        code, out, _ = run(["replay", write(tmp_path, events[:cut])], capsys)
        assert code == 0 and out.startswith("valid") and "hand 15 is unfinished" in out, out
    # nothing dealt at all: the rules line alone (it said "hand None is unfinished")
    code, out, _ = run(["replay", write(tmp_path, events[:1])], capsys)
    assert code == 0 and out.strip() == ("valid: 1 event, 0 hands, 0 plays checked "
                                         "(plays); no hand is dealt"), out


def test_replay_complete_refuses_a_log_cut_short(log_file, tmp_path, capsys):
    """--complete (check_log's complete): each cut of the test above is invalid, exit 1,
    at the log's last event, saying what is missing; the whole log stays valid. Without
    it a script reading the exit status could not tell a log cut short from a whole one."""
    _, events = log_file
    last_deal = max(i for i, e in enumerate(events) if e["event"] == "deal")
    for cut, missing in ((len(events) - 1, "hand 15 has no end event"),
                         (last_deal + 5, "hand 15 is unfinished"),
                         (last_deal + 1, "hand 15 is unfinished"),
                         (1, "no hand is dealt")):
        code, out, err = run(["replay", "--complete", write(tmp_path, events[:cut])], capsys)
        assert code == 1 and err == "" and out.strip() == (
            f"invalid: event {cut} (line {cut}): the log ends here, but {missing} "
            f"(--complete)"), out
    code, out, _ = run(["replay", "--complete", write(tmp_path, events)], capsys)
    whole = cli_play.check_log([json.dumps(e) for e in events])
    assert code == 0 and out.strip() == whole and whole.startswith("valid") and ";" not in whole
    with pytest.raises(TypeError, match="complete must be True or False, not 'yes'"):
        cli_play.check_log([json.dumps(e) for e in events], complete="yes")
    # a one-hand log of guandan play cut before its end event holds no match event to tell
    # it by, but names its rules (it passed --complete); a log of deals and plays alone
    # has no end events to miss
    one = events[:events.index(next(e for e in events if e["event"] == "end"))]
    assert {e["event"] for e in one} == {"rules", "deal", "play"}
    code, out, _ = run(["replay", "--complete", write(tmp_path, one)], capsys)
    assert code == 1 and out.strip() == (f"invalid: event {len(one)} (line {len(one)}): the "
                                         f"log ends here, but hand 1 has no end event "
                                         f"(--complete)"), out
    code, out, _ = run(["replay", "--complete", write(tmp_path, one[1:])], capsys)
    assert code == 0 and out.startswith("valid: "), out
    # without --complete that log is valid as far as it goes, and says what it misses, as
    # a log of a match does (it said nothing)
    code, out, _ = run(["replay", write(tmp_path, one)], capsys)
    assert code == 0 and out.startswith("valid: ") and out.strip().endswith(
        "; hand 1 has no end event"), out


def test_replay_a_log_of_a_match_starts_with_hand_1(log_file, tmp_path, capsys):
    """Hands are numbered from 1, and a log with match events is checked from a match's
    first hand: a first deal numbered otherwise is refused at its own line (it passed, and
    a later deal was blamed, or none); a log of deals and plays alone may start later, as
    a part of a longer one, but never below 1."""
    _, events = log_file
    assert events[1]["event"] == "deal" and events[1]["hand"] == 1
    for number in (0, -5, 7):
        renumbered = events[:1] + [dict(events[1], hand=number)] + events[2:]
        code, out, err = run(["replay", write(tmp_path, renumbered)], capsys)
        assert code == 1 and err == "" and out.strip() == (
            f"invalid: event 2 (line 2): the log's first deal is of hand {number}, but "
            f"hands are numbered from 1 and this log starts a match"), out
    # (without tribute, as test_replay_plays_only_log)
    plays_only = [e for e in match_events(MatchRules.standard().replace(tribute=False), 4)
                  if e["event"] in ("deal", "play")]
    second = _first(plays_only[1:], lambda e: e["event"] == "deal") + 1
    assert plays_only[second]["hand"] == 2
    code, out, _ = run(["replay", write(tmp_path, plays_only[second:])], capsys)
    assert code == 0 and "3 hands" in out, out
    code, out, err = run(["replay", write(tmp_path, [dict(plays_only[0], hand=0)]
                                          + plays_only[1:second])], capsys)
    assert code == 1 and out.strip() == ("invalid: event 1 (line 1): the log's first deal is "
                                         "of hand 0, but hands are numbered from 1"), out


def _first(events, pred):
    return next(i for i, e in enumerate(events) if pred(e))


def _mutations(events):
    """(name, mutated events, expected event number, words of the reason)."""
    out = []
    i = _first(events, lambda e: e["event"] == "play" and e["action"][0] == "PASS")
    bad = [dict(e) for e in events]
    del bad[i]
    after = events[i + 1]
    assert after["event"] == "play"
    out.append(("dropped pass", bad, i + 1, f"seat {after['seat']} plays "
                f"{json.dumps(after['action'])} but it is seat {events[i]['seat']}'s turn"))
    i = next(i for i in range(1, len(events))
             if events[i]["event"] == "play" and events[i]["action"][0] == "PASS"
             and events[i - 1]["event"] == "play" and events[i - 1]["action"][0] == "Single")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], action=["Single", "3", ["S3"]])
    out.append(("single that does not beat or is not held", bad, i + 1,
                re.compile(r"does not beat|does not hold|not held|holds no")))
    i = _first(events, lambda e: e["event"] == "play" and e["action"][0] == "Pair")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], action=["Trips", bad[i]["action"][1], bad[i]["action"][2]])
    out.append(("wrong reading", bad, i + 1, "Trips"))
    i = _first(events, lambda e: e["event"] == "tribute")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], to=(bad[i]["to"] + 2) % 4)
    out.append(("tribute to the wrong seat", bad, i + 1, "tribute due"))
    i = _first(events, lambda e: e["event"] == "return")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], card="HR")
    out.append(("return not allowed", bad, i + 1, "return"))
    i = _first(events, lambda e: e["event"] == "end")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], levels=["K", "2"])
    out.append(("wrong levels", bad, i + 1, "levels"))
    # the second and third places swapped (a check of the first place alone passed it)
    bad = [dict(e) for e in events]
    order = list(bad[i]["order"])
    order[1], order[2] = order[2], order[1]
    bad[i] = dict(bad[i], order=order)
    out.append(("finishing order out of step", bad, i + 1, "does not match the play"))
    i = _first(events, lambda e: e["event"] == "deal" and e["hand"] == 2)
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], level="9")
    out.append(("wrong hand level", bad, i + 1, "must be played at"))
    bad = [dict(e) for e in events]
    hands = [list(h) for h in bad[1]["hands"]]
    one, three = hands[0][0], hands[1][0]
    hands[0][0] = three
    bad[1] = dict(bad[1], hands=hands)
    out.append(("not a full deck", bad, 2,      # (the card named: one dealt once or thrice)
                re.compile(rf"full decks: ({one} is dealt 1|{three} is dealt 3) times")))
    i = _first(events, lambda e: e["event"] == "tribute")
    bad = [dict(e) for e in events]
    j = _first(events[i:], lambda e: e["event"] == "play") + i
    lead = bad[j]
    bad[j] = dict(lead, seat=(lead["seat"] + 1) % 4)
    out.append(("wrong leader after tribute", bad, j + 1, "must lead"))
    # events that break the match rules around tribute, resistance and the end of a hand
    deal1, deal2 = (_first(events, lambda e, n=n: e["event"] == "deal" and e["hand"] == n)
                    for n in (1, 2))
    end1 = deal2 - 1
    tribute = _first(events, lambda e: e["event"] == "tribute")
    ret = _first(events, lambda e: e["event"] == "return")
    resist = _first(events, lambda e: e["event"] == "resist")
    out.append(("resist in a match's first hand", events[:deal1 + 1]
                + [{"event": "resist", "seats": [1, 3]}] + events[deal1 + 1:], deal1 + 2,
                "no tribute is due"))
    out.append(("tribute in a match's first hand", events[:deal1 + 1]
                + [dict(events[tribute])] + events[deal1 + 1:], deal1 + 2, "no tribute is due"))
    out.append(("tribute after resistance", events[:resist + 1]
                + [dict(events[tribute])] + events[resist + 1:], resist + 2, "big jokers"))
    out.append(("no resist event", events[:resist] + events[resist + 1:], resist + 1,
                "without the resist event"))
    payer = events[tribute]["from"]
    held = events[tribute - 1]["hands"][payer]         # (the deal comes just before)
    card = next(c for h in events[tribute - 1]["hands"] for c in h if c not in held)
    bad = [dict(e) for e in events]
    bad[tribute] = dict(bad[tribute], card=card)
    out.append(("tribute of a card not held", bad, tribute + 1, "does not hold"))
    bad = [dict(e) for e in events]
    paid_by = {e["from"] for e in events[tribute:ret] if e["to"] == events[ret]["from"]}
    bad[ret] = dict(bad[ret], to=next(s for s in range(4) if s not in paid_by
                                      and s != events[ret]["from"]))
    out.append(("return to a seat that paid nothing", bad, ret + 1, "paid it no tribute"))
    out.append(("a second return", events[:ret + 1] + [dict(events[ret])] + events[ret + 1:],
                ret + 2, "second card"))
    # (once every tribute was paid, the message ended in "but the tribute due is")
    paid = events[tribute + 1]
    out.append(("a tribute paid twice", events[:tribute + 2] + [dict(paid)]
                + events[tribute + 2:], tribute + 3,
                re.compile(rf"seat {paid['from']} pays seat {paid['to']}, but every tribute "
                           rf"due before hand \d+ is paid$")))
    out.append(("a second resist event", events[:resist + 1] + [dict(events[resist])]
                + events[resist + 1:], resist + 2, "a second resist event for hand"))
    out.append(("a tribute after a return", events[:ret + 1] + [dict(events[tribute])]
                + events[ret + 1:], ret + 2, "tribute after a card was returned"))
    play = _first(events[tribute:], lambda e: e["event"] == "play") + tribute
    out.append(("play before the tribute", events[:tribute] + events[play:], tribute + 1,
                "has not paid tribute"))
    out.append(("deal before the hand is over", events[:deal1 + 3] + events[deal2:],
                deal1 + 4, "before hand 1 is over"))
    out.append(("no end event", events[:end1] + events[deal2:], end1 + 1, "has no end event"))
    out.append(("play after the hand is over", events[:end1]
                + [{"event": "play", "seat": 0, "action": ["PASS", "PASS", "PASS"]}]
                + events[end1:], end1 + 1, "is over"))
    out.append(("a second end event", events[:deal2] + [dict(events[end1])] + events[deal2:],
                deal2 + 1, "second end event"))
    order = events[end1]["order"]
    bad = [dict(e) for e in events]
    bad[end1] = dict(bad[end1], order=order[:3] + order[2:3])
    out.append(("an end order that is no permutation", bad, end1 + 1,
                f"finishing order {json.dumps(order[:3] + order[2:3])} is not the four seats "
                f"0 to 3, each once"))
    # (a short order was refused as "does not match the play: the seats went out in the
    # order ..." followed by the same seats)
    bad = [dict(e) for e in events]
    bad[end1] = dict(bad[end1], order=order[:3])
    out.append(("an end order of three seats", bad, end1 + 1,
                f"finishing order {json.dumps(order[:3])} is not the four seats"))
    bad = [dict(e) for e in events]
    bad[end1] = dict(bad[end1], order=order[1::-1] + order[2:])
    out.append(("an end order against the play", bad, end1 + 1, "does not match"))
    # a 1st-2nd finish: the two seats left follow in turn order from the seat after the
    # last out, as the log writes them (a swapped pair passed: only the seats out were read)
    double = _first(events, lambda e: e["event"] == "end" and e["order"][1] == e["order"][0] ^ 2)
    order = events[double]["order"]
    assert order[2] == (order[1] + 1) % 4
    bad = [dict(e) for e in events]
    bad[double] = dict(bad[double], order=order[:2] + order[:1:-1])
    out.append(("the losers of a 1st-2nd finish swapped", bad, double + 1,
                f"does not list the seats still holding cards in turn order after seat "
                f"{order[1]}, the last out: {json.dumps(order)}"))
    hands = [list(h) for h in events[deal1]["hands"]]
    bad = [dict(e) for e in events]
    bad[deal1] = dict(bad[deal1], hands=[hands[0][1:]] + hands[1:])
    out.append(("26 cards dealt", bad, deal1 + 1, "26 cards"))
    bad = [dict(e) for e in events]
    # (a 3 or a 4: not the level card of the fixture's hand 2, so never its highest card)
    bad[tribute] = dict(bad[tribute], card=next(c for c in held if c[1] in "34"))
    out.append(("tribute of a low card", bad, tribute + 1, "not its highest card"))
    receiver = events[ret]["from"]
    low = next(c for h in events[tribute - 1]["hands"] for c in h if c[1] in "3456"
               and c not in events[tribute - 1]["hands"][receiver])
    bad = [dict(e) for e in events]
    bad[ret] = dict(bad[ret], card=low)
    out.append(("return of a card not held", bad, ret + 1, "does not hold"))
    assert events[tribute + 1]["event"] == "tribute"       # (two tributes: return one early)
    out.append(("return before the second tribute", events[:tribute + 1] + [events[ret]]
                + events[tribute + 1:ret] + events[ret + 1:], tribute + 2,
                "before every tribute is paid"))
    bad = [dict(e) for e in events]
    bad[resist + 1] = dict(bad[resist + 1], seat=(bad[resist + 1]["seat"] + 1) % 4)
    out.append(("wrong leader after resistance", bad, resist + 2, "must lead"))
    for name, i in (("play", 2), ("tribute", tribute)):
        out.append((f"{name} before any deal", events[:1] + [events[i]] + events[1:], 2,
                    f"{name} before any deal"))
    for name, i, start in (("resist", resist, resist + 1), ("tribute", tribute, play),
                           ("return", ret, play)):
        out.append((f"{name} after play has started", events[:start + 1] + [events[i]]
                    + events[start + 1:], start + 2, f"{name} after play has started"))
    # seats, hand numbers and deals that break the log's own shape of a match
    i = _first(events, lambda e: e["event"] == "play")
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], seat=4)
    out.append(("a seat that is no seat", bad, i + 1, "seat 4 is not a seat 0..3"))
    # README, guandan replay: a well-formed event naming a card or a level that does not
    # exist breaks the rules (invalid, exit 1), it is not unreadable input (exit 2)
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], action=["Single", "9", ["X9"]])
    # (the action named once: it came again after the card, as a Python list)
    out.append(("an unknown card played", bad, i + 1, re.compile(re.escape(
        f'seat {bad[i]["seat"]} plays ["Single", "9", ["X9"]]: unknown card \'X9\'') + "$")))
    bad = [dict(e) for e in events]
    bad[deal1] = dict(bad[deal1], level="Z")
    out.append(("a level that is no level", bad, deal1 + 1, "not 'Z'"))
    bad = [dict(e) for e in events]
    bad[deal2] = dict(bad[deal2], hand=3)
    out.append(("a hand number skipped", bad, deal2 + 1, "hand number 3 does not follow 1"))
    bad = [dict(e) for e in events]
    bad[deal1] = dict(bad[deal1], hands=bad[deal1]["hands"][:3])
    out.append(("3 hands dealt", bad, deal1 + 1, "a deal has 4 hands, not 3"))
    bad = [dict(e) for e in events]
    bad[resist] = dict(bad[resist], seats=[(s + 1) % 4 for s in events[resist]["seats"]])
    out.append(("resist by the other team", bad, resist + 1, "are not the payers"))
    out.append(("resist by a payer without the big jokers", events[:tribute]
                + [{"event": "resist", "seats": [payer]}] + events[tribute:], tribute + 1,
                "no resistance is possible here"))
    assert events[ret + 1]["event"] == "return"         # (two tributes, two returns)
    out.append(("play before the second return", events[:ret + 1] + events[ret + 2:], ret + 2,
                "play starts before every return card is given"))
    return out


def test_replay_finds_the_broken_event(log_file, tmp_path, capsys):
    """Every kind of broken log is reported at the right event, exit 1, one line."""
    _, events = log_file
    for name, bad, number, words in _mutations(events):
        code, out, err = run(["replay", write(tmp_path, bad)], capsys)
        assert code == 1, name
        lines = out.strip().splitlines()
        assert len(lines) == 1, name
        assert lines[0].startswith(f"invalid: event {number} "), (name, lines[0])
        found = words.search(lines[0]) if isinstance(words, re.Pattern) else words in lines[0]
        assert found, (name, lines[0])


def test_replay_splits_lines_at_line_breaks_alone(log_file, tmp_path, capsys, monkeypatch):
    """A JSON string may hold U+2028, U+2029 or U+0085 as they are (str.splitlines cut the
    line there, and the log was "not valid JSON"): such a card is a card the rules refuse,
    exit 1. LF, CR LF and CR end lines; lines are split a chunk at a time, the same at
    every chunk size."""
    _, events = log_file
    for odd in ("\u2028", "\u2029", "\x85"):
        bad = json.loads(json.dumps(events))
        deal = next(e for e in bad if e["event"] == "deal")
        deal["hands"][0][0] += odd
        path = tmp_path / "odd.jsonl"
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in bad),
                        encoding="utf-8")
        assert odd in path.read_text(encoding="utf-8")
        code, out, err = run(["replay", str(path)], capsys)
        assert code == 1 and out.startswith("invalid: event ") and err == "", (out, err)
    # CR LF and lone CRs end lines as LFs do (splitlines split there too)
    breaks = ("\r\n", "\r", "\n", "\r\n\r\n")
    text = "".join(json.dumps(e) + breaks[i % 4] for i, e in enumerate(events))
    (tmp_path / "crlf.jsonl").write_text(text, newline="")
    want = run(["replay", str(tmp_path / "crlf.jsonl")], capsys)
    assert want[0] == 0 and f"{len(events)} events" in want[1]
    # event 6 is on line 7: the CR LF pair after event 4 ends a line and a blank one
    bad = text.replace(json.dumps(events[5]), "{", 1)
    (tmp_path / "bad.jsonl").write_text(bad, newline="")
    rng = random.Random(38)
    for chunk in (1, 2, 3, 7, 50):
        monkeypatch.setattr(cli_play._LogLines, "CHUNK", chunk)
        assert run(["replay", str(tmp_path / "crlf.jsonl")], capsys) == want
        assert "event 6 (line 7): not valid JSON" in \
            run(["replay", str(tmp_path / "bad.jsonl")], capsys)[2]
        for _ in range(300):
            text = "".join(rng.choice(["a", "\n", "\r", "\r\n", "\u2028", "bc"])
                           for _ in range(rng.randrange(12)))
            lines = [line.replace("\u2028", "x") for line in cli_play._LogLines(text)]
            assert lines == text.replace("\u2028", "x").splitlines(), text


def test_replay_bad_input(tmp_path, capsys):
    """Unreadable input: one line on stderr, exit 2, no traceback."""
    cases = {"missing.jsonl": None, "notjson.jsonl": "{\"event\": \"deal\"\n",
             "unknown.jsonl": '{"event": "dance"}\n',
             "fields.jsonl": '{"event": "play", "seat": 1}\n', "empty.jsonl": "\n",
             "listname.jsonl": '{"event": ["deal"]}\n',
             "seatname.jsonl": '{"event": "play", "seat": "1", "action": ["PASS", "PASS", '
                               '"PASS"]}\n',
             "seatbool.jsonl": '{"event": "play", "seat": true, "action": ["PASS", "PASS", '
                               '"PASS"]}\n',
             "order.jsonl": '{"event": "end", "order": [0, "a", 1, 2], "levels": ["2", "2"], '
                            '"winner": null}\n',
             "levels.jsonl": '{"event": "end", "order": [0, 1, 2, 3], "levels": [2, 2], '
                             '"winner": null}\n',
             # true is no seat (JSON's true is not 1), nor is "1"
             "orderbool.jsonl": '{"event": "end", "order": [0, 1, 2, true], "levels": '
                                '["2", "2"], "winner": null}\n',
             "resistseats.jsonl": '{"event": "resist", "seats": ["1", 3]}\n',
             "deep.jsonl": "[" * 100_000 + "\n",
             "latin1.jsonl": '{"event": "dance\u00e9"}\n'.encode("latin-1"),
             "twice.jsonl": '{"event": "play", "event": "deal"}\n',
             # a field an event does not have (a misspelling) was dropped without a word
             "extra.jsonl": '{"event": "play", "seat": 1, "action": ["PASS", "PASS", '
                            '"PASS"], "sear": 2}\n',
             # a long bad value is shortened (it was printed whole: 200,058 bytes)
             "long.jsonl": '{"event": "' + "x" * 200_000 + '"}\n'}
    for name, text in cases.items():
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        elif text is not None:
            path.write_text(text)
        code, out, err = run(["replay", str(path)], capsys)
        assert code == 2, name
        assert out == "" and len(err.strip().splitlines()) == 1, name
        assert "Traceback" not in err and len(err) < 2500, name
        if name in ("missing.jsonl", "latin1.jsonl"):      # the file is what is wrong
            assert name in err, err
        if name == "extra.jsonl":
            assert "play event with unknown field 'sear' (its fields: event, seat, " \
                   "action)" in err, err


def test_replay_actions_of_wrong_types_are_named(log_file, tmp_path, capsys):
    """An action that is not [type, rank, cards] of strings, or a dealt card that is no
    string, is unreadable input (exit 2, the value quoted, not Python's own words about the
    wrong type); a well-formed action or card that means nothing is a broken rule (exit 1)."""
    _, events = log_file
    i = _first(events, lambda e: e["event"] == "play" and e["action"][0] == "Single")
    deal = _first(events, lambda e: e["event"] == "deal")
    # (named in JSON's words: null, not None; "x", not 'x')
    for action, named in ((["Single", "A", 5], "5"), ([["x"], "A", ["SA"]], '["x"]'),
                          (["Single", 9, ["S9"]], "9"), (["PASS", "PASS", {}], "{}"),
                          ([1, 2, 3], "[1, 2, 3]"), (["Single", "A"], '["Single", "A"]'),
                          (["Single", "A", ["SA", 4]], '["SA", 4]'),
                          (["Single", "3", [None]], '["Single", "3", [null]]')):
        bad = [dict(e) for e in events]
        bad[i] = dict(bad[i], action=action)
        code, out, err = run(["replay", write(tmp_path, bad)], capsys)
        assert code == 2 and out == "" and f"event {i + 1} " in err and named in err, err
        assert "not a [type, rank, cards] triple of strings" in err, err
        assert "object" not in err and "unhashable" not in err, err
    bad = [dict(e) for e in events]
    bad[i] = dict(bad[i], seat=True)
    code, out, err = run(["replay", write(tmp_path, bad)], capsys)
    assert code == 2 and err.endswith("play field 'seat' has a wrong type: true\n"), err
    for card in (5, None, ["S3"]):
        bad = [dict(e) for e in events]
        bad[deal] = dict(bad[deal], hands=[[card] + h[1:] for h in bad[deal]["hands"]])
        code, out, err = run(["replay", write(tmp_path, bad)], capsys)
        assert code == 2 and out == "" and "'hands' is not lists of card strings" in err, err
    for action, named in ((["Single", "A", ["XX"]], "'XX'"), (["Bomb", "A", ["SA"]], "SA")):
        bad = [dict(e) for e in events]
        bad[i] = dict(bad[i], action=action)
        code, out, err = run(["replay", write(tmp_path, bad)], capsys)
        assert code == 1 and out.startswith(f"invalid: event {i + 1} ") and named in out, out
    code, out, err = run(["replay", write(tmp_path, [dict(events[-1])])], capsys)
    assert code == 1 and out == "invalid: event 1 (line 1): end event before any deal\n"


def test_play_plays_one_hand_by_default(capsys):
    """--hands: "number of hands (default 1)": without it, one deal and one end event."""
    code, out, err = run(["play", "--seed", "1", "--json"], capsys)
    assert code == 0 and err == ""
    kinds = [json.loads(line)["event"] for line in out.splitlines()]
    assert (kinds.count("deal"), kinds.count("end")) == (1, 1)


def test_play_text_log_names_one_resisting_seat_in_the_singular():
    """The readable log says "seat 3 holds" for one seat resisting tribute and "seats 1 and
    3 hold" for two (the run of test_play_text_log_tells_what_the_json_log_tells has no lone
    one)."""
    out = io.StringIO()
    log = cli_play._TextLog(out, summary=False)
    log({"event": "resist", "seats": [3]})
    log({"event": "resist", "seats": [1, 3]})
    assert out.getvalue() == ("  resist: seat 3 holds both big jokers, no tribute\n"
                              "  resist: seats 1 and 3 hold both big jokers, no tribute\n")


def test_replay_summary_of_a_match_log_says_match_rules_were_checked(log_file, capsys):
    """A log with tribute, return, resist or end events is checked against the match rules
    too, and the summary says so (a log of deals and plays alone says "(plays)")."""
    path, events = log_file
    plays = sum(e["event"] == "play" for e in events)
    assert run(["replay", str(path)], capsys) == (
        0, f"valid: {len(events)} events, 15 hands, {plays} plays checked "
           "(plays and match rules)\n", "")


def test_replay_reads_a_pass_written_with_nulls(log_file, tmp_path, capsys):
    """PROTOCOL.md: in a pass's triple the rank and the cards may also be null: a log whose
    passes say ["PASS", null, null] replays as the same log with ["PASS", "PASS", "PASS"]."""
    path, events = log_file
    nulls = [dict(e, action=["PASS", None, None])
             if e["event"] == "play" and e["action"][0] == "PASS" else e for e in events]
    assert nulls != events
    want = run(["replay", str(path)], capsys)
    assert want[0] == 0 and run(["replay", write(tmp_path, nulls)], capsys) == want


def test_replay_refuses_rules_that_differ_in_match_options_alone(tmp_path, capsys):
    """A log played under the standard card rules but other match options (here no
    tribute) is refused under --rules standard, exit 2, the log's rules named in JSON as
    no preset has them."""
    custom = MatchRules.standard().replace(tribute=False)
    events = match_events(custom, 2)
    code, out, err = run(["replay", write(tmp_path, events), "--rules", "standard"], capsys)
    assert (code, out) == (2, "")
    assert err == (f"guandan replay: error: the log was played under the rules "
                   f"{json.dumps(custom.to_json())}, not the rules asked for (the standard "
                   "rules)\n")


def test_replay_names_the_line_of_a_bad_rules_event(log_file, tmp_path, capsys):
    """A rules event whose options do not read is unreadable input at event 1, on the line
    it is on (here after a blank line: line 2)."""
    path, events = log_file
    path.write_text("\n" + "".join(json.dumps(e) + "\n"
                                   for e in [dict(events[0], tribute="yes")] + events[1:]))
    code, out, err = run(["replay", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("guandan replay: error: event 1 (line 2): "), err


def test_replay_checks_the_match_winner(capsys):
    """RULES 8: the end event of the hand that wins a match names the winning team; a log
    that says null there is refused at that event."""
    events = play_json(capsys, hands=40, seed=3)
    i = _first(events, lambda e: e["event"] == "end" and e["winner"] is not None)
    won = events[i]["winner"]
    bad = events[:i] + [dict(events[i], winner=None)] + events[i + 1:]
    with pytest.raises(cli_play.ReplayError) as caught:
        cli_play.check_log([json.dumps(e) for e in bad])
    assert str(caught.value) == \
        f"event {i + 1} (line {i + 1}): match winner after the hand is {won}, not null"
    # the levels in the log's own notation too (they were Python lists of strings)
    bad = events[:i] + [dict(events[i], levels=["3", "2"])] + events[i + 1:]
    with pytest.raises(cli_play.ReplayError) as caught:
        cli_play.check_log([json.dumps(e) for e in bad])
    assert str(caught.value) == (f"event {i + 1} (line {i + 1}): team levels after the hand "
                                 f"are {json.dumps(events[i]['levels'])}, not [\"3\", \"2\"]")


def test_cli_subprocess(tmp_path):
    """The commands run as ``python -m guandan_core.cli`` in a subprocess."""
    module = "guandan_core.cli"
    env = cli_env()
    res = subprocess.run([sys.executable, "-m", module, "play", "--players",
                          "greedy,random,greedy,random", "--hands", "3", "--seed", "2",
                          "--json"], capture_output=True, text=True, cwd=PACKAGES, env=env)
    assert res.returncode == 0 and res.stderr == ""
    path = tmp_path / "log.jsonl"
    path.write_text(res.stdout)
    res = subprocess.run([sys.executable, "-m", module, "replay", str(path)],
                         capture_output=True, text=True, cwd=PACKAGES, env=env)
    assert res.returncode == 0 and res.stdout.startswith("valid")
    res = subprocess.run([sys.executable, "-m", module, "replay", str(tmp_path / "no")],
                         capture_output=True, text=True, cwd=PACKAGES, env=env)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_replay_counts_failed_hands_at_a_afresh_in_each_match(tmp_path, capsys):
    """RULES sec. 9 (fail_at_a=2, the platform's: a team drops to 2 after two failed hands
    at A) and API.md (after a team wins the game, the next hand starts a new match): the
    count starts again with the match. Four greedy players, seed 0: team 1 fails at A in
    hand 6 (team 0 wins it), then wins the game in hand 10; in the new match it fails at
    A once more in hand 23 (first, but its partner last), and stays at A while team 0,
    failing there for the second time in that match, drops to 2. A replay that kept
    team 1's first failure dropped it too and called the log invalid."""
    events = match_events(MatchRules.standard().replace(fail_at_a=2), 23, seed=0,
                          player=GreedyPlayer)
    deals = [e for e in events if e["event"] == "deal"]
    ends = [e for e in events if e["event"] == "end"]
    assert (deals[5]["level"], ends[4]["levels"], ends[5]["order"][0] % 2) == ("A", ["2", "A"], 0)
    assert ends[9]["winner"] == 1 and all(e["winner"] is None for e in ends[10:])
    assert (deals[22]["level"], ends[21]["levels"]) == ("A", ["A", "A"])
    assert ends[22]["order"] == [1, 0, 2, 3] and ends[22]["levels"] == ["2", "A"]
    code, out, err = run(["replay", write(tmp_path, events)], capsys)
    assert (code, err) == (0, "") and out.startswith("valid: "), out
