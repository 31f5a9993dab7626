"""guandan moves and guandan classify on the command line (RULES sec. 1-4), and the
command line's usage errors."""

import io
import json
import sys

import pytest

import guandan_core
from cli_process import assert_one_line_error, run_cli
from guandan_core import Hand, Move, Rules, classify, legal_moves
from guandan_core.cli import build_parser, main


def assert_table_rows(lines, moves):
    """One text row per move, in order: PASS alone, else the type, the rank and the
    cards, and "(wild as ...)" with what each wild card stands for when it stands for
    something (RULES sec. 3)."""
    assert len(lines) == len(moves), lines
    for line, m in zip(lines, moves):
        if m.is_pass:
            assert line == "PASS"
            continue
        shown, _, wild = line.partition("   (wild as ")
        assert shown.split() == [m.type, m.rank, *m.cards], line
        assert wild == (" ".join(m.wild_as) + ")" if m.wild_as else ""), line


def test_moves_on_lead_lists_every_legal_move(capsys):
    """The README's example: a hand with a wild card (level 7), every move listed."""
    assert main(["moves", "S5 S6 H7 S8 S9 D9", "--level", "7", "--json"]) == 0
    out = capsys.readouterr().out
    listed = json.loads(out)
    moves = list(legal_moves(Hand("S5 S6 H7 S8 S9 D9"), "7"))
    assert listed == [m.to_platform() for m in moves] and len(listed) == 16
    assert out.endswith("]\n")         # a whole line (it ended without its line break)
    assert main(["moves", "S5 S6 H7 S8 S9 D9", "--level", "7"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "-- 16 moves on lead (hand S5 S6 H7 S8 S9 D9, level 7)"
    assert_table_rows(lines[:-1], moves)
    assert any(m.wild_as for m in moves)      # (H7 wild: some rows name what it stands for)


def test_moves_that_beat_a_play_pass_first(capsys):
    """RULES sec. 6: a follower may pass; sec. 5: only higher plays of the kind, or bombs."""
    assert main(["moves", "S9 D9 HT CT SB", "--level", "2", "--beat", "S8 D8", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0] == ["PASS", "PASS", "PASS"]
    assert sorted(m[1] for m in listed[1:]) == ["9", "T"]
    # in text: a PASS row first, then a row for each move that beats it
    assert main(["moves", "S9 D9 HT CT SB", "--level", "2", "--beat", "S8 D8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    beat = classify("S8 D8", "2")[0]
    assert_table_rows(lines[:-1], [Move.PASS, *legal_moves(Hand("S9 D9 HT CT SB"), "2", beat)])
    assert lines[-1].startswith("-- 2 moves that beat Pair 8: S8 D8 ")


def test_beat_type_picks_a_reading_by_type_and_rank(capsys):
    """RULES sec. 3, 4: with H7 wild, S3 S4 C5 C6 H7 is a straight to 6 or to 7 (two
    readings of one type), so --beat-type takes the rank too, as the readings are shown."""
    cards, beat = "S3 D4 S5 S6 S8 H7", "S3 S4 C5 C6 H7"
    tops = {}
    for reading in ("Straight 2", "straight 3"):
        assert main(["moves", cards, "--level", "7", "--beat", beat, "--beat-type", reading,
                     "--json"]) == 0
        tops[reading] = {m[1] for m in json.loads(capsys.readouterr().out)[1:]}
    assert tops == {"Straight 2": {"3", "4"}, "straight 3": {"4"}}
    assert_one_line_error(run_cli(["moves", cards, "--level", "7", "--beat", beat]),
                          "several readings (Straight 2, Straight 3)")
    assert_one_line_error(run_cli(["moves", cards, "--level", "7", "--beat", beat,
                                   "--beat-type", "Straight 9"]), "cannot be read as")
    # the rank as cards read ranks (RULES sec. 1: parsers accept 10 for T); with H2 wild,
    # DT SJ SQ SK H2 is a straight to 9 or to T
    beat = "DT SJ SQ SK H2"
    for reading in ("Straight T", "straight 10"):
        assert main(["moves", "S9 DJ", "--beat", beat, "--beat-type", reading]) == 0
        assert "0 moves that beat Straight T: H2 DT SJ SQ SK" in capsys.readouterr().out


def test_classify_names_every_reading(capsys):
    """RULES sec. 4: four of a rank is a bomb; with a wild card a pair reads as more."""
    assert main(["classify", "S9 H9 C9 D9", "--level", "2", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == [["Bomb", "9", ["S9", "H9", "C9", "D9"]]]
    assert out.endswith("]\n")         # a whole line (it ended without its line break)
    assert main(["classify", "S9 HT", "--level", "2"]) == 0
    assert "not a combination" in capsys.readouterr().out
    # H2 wild at level 2 (sec. 3): a straight to 6 (as 2) or to 7 (as 7), and the same as
    # straight flushes (as S2, S7); each row says what the wild card stands for
    assert main(["classify", "H2 S3 S4 S5 S6", "--level", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert_table_rows(lines, classify("H2 S3 S4 S5 S6", "2"))
    assert lines[-1].startswith("StraightFlush") and lines[-1].endswith("(wild as S7)")


def test_rules_option_is_used():
    """RULES sec. 4, 9: five consecutive cards of one suit are a straight flush only,
    and a plain straight when straight flushes are switched off (no-sf-bomb)."""
    for rules, types in (("no-sf-bomb", ["Straight"]), ("standard", ["StraightFlush"])):
        proc = run_cli(["classify", "S3 S4 S5 S6 S7", "--rules", rules, "--json"])
        assert proc.returncode == 0
        readings = json.loads(proc.stdout)
        assert [r[0] for r in readings] == types and {r[1] for r in readings} == {"3"}
        assert readings == [m.to_platform() for m in classify("S3 S4 S5 S6 S7", "2",
                                                               Rules.by_name(rules))]


def test_version_is_the_package_s():
    """--version names the program and the package's version (the one its metadata is
    built from, pyproject.toml's ``attr``), and exits 0."""
    proc = run_cli(["--version"])
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"guandan {guandan_core.__version__}\n"


def test_valid_seconds_are_taken():
    """A number of seconds in range is accepted (0.5 s a move; the bot then reads an
    empty input and ends), where the bad ones above are refused."""
    proc = run_cli(["bot", "--stdio", "--move-time", "0.5"], stdin="")
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.parametrize("args, message", [
    (["moves", "S5 X9", "--level", "7"], "X9"),
    (["moves", "S5", "--level", "1"], "'1'"),
    # (it went on with advice on numpy arrays of counts, which the user had not given)
    (["moves", "D9 D9", "--level", "7", "--beat", "D9"],
     "the hand and --beat together hold D9 3 times (each card exists twice)"),
    (["moves", "D9 S9", "--level", "7", "--beat-type", "Single"], "--beat-type needs --beat"),
    (["moves", "D9 S9", "--level", "7", "--beat", "S3 S5"], "not a combination"),
    (["moves", "D9 S9", "--level", "7", "--beat", ""], "not a combination"),
    (["moves", "S5", "--example"], "not both"),
    (["moves", "--level", "7"], 'guandan moves: error: give a HAND (e.g. "S3 S3 H5") or '
                                '--example (see'),       # it said "not both" of neither
    (["solve"], "give POSITION files (or - for stdin), or --example"),
    # the flag named, not solve()'s or Match's parameter
    (["solve", "--example", "--time-limit", "-1"], "argument --time-limit: seconds 0 or more"),
    (["solve", "--example", "--node-limit", "-5"], "argument --node-limit: a whole number"),
    (["play", "--seed", "-1"], "argument --seed: a whole number from 0 to 10**30 - 1, not '-1'"),
    (["play", "--seed", "1" + "0" * 30], "from 0 to 10**30 - 1, not '1" + "0" * 30 + "'"),
    (["play", "--first-leader", "X9"], "argument --first-leader: random or a card such as H2"),
    (["play", "--json", "--summary"], "argument --summary: not allowed with argument --json"),
    (["play", "--hands", "0"], "argument --hands: a number of hands from 1 to 999999999, not '0'"),
    (["play", "--hands", "1000000000"], "from 1 to 999999999, not '1000000000'"),
    (["solve", "--example", "--time-limit", "1" + "0" * 18], "at most 18 digits before the point"),
    (["moves", "  ", "--level", "7"], "the hand is empty"),
    (["moves", " ".join(s + r for s in "SHCD" for r in "3456789"), "--level", "7"],
     "the hand holds 28 cards; a hand holds at most 27"),
    (["analyze", "S3 S4", "--level", "7", "--played", "S3 S3 S3"],
     "--played 'S3 S3 S3': it holds S3 more than twice"),
    # a bad card in an option named with the option (it was named alone, as if in HAND)
    (["analyze", "S3 S4", "--level", "7", "--played", "S5 XX"],
     "error: --played 'S5 XX': unknown card 'XX'"),
    (["moves", "S3 S4", "--level", "7", "--beat", "S5 XX"],
     "error: --beat 'S5 XX': unknown card 'XX'"),
    (["moves", "S3 S4", "--level", "7", "--beat", "S5 S5 S5"],
     "error: --beat 'S5 S5 S5': play holds S5 more than twice"),
    (["moves", "S3 S4", "--level", "7", "--beat", "S5 S8"],
     "error: --beat 'S5 S8' is not a combination at level 7"),
    (["classify", "", "--level", "7"], "no cards"),
    # (a gap between commas was skipped: "S3,,S4" may have lost a card)
    (["classify", "S3,,S4", "--level", "7"], "an empty card between commas in 'S3,,S4'"),
    (["moves", "S3 S4,", "--level", "7"], "an empty card between commas in 'S3 S4,'"),
    (["classify", "S5 S5 S5", "--level", "7"], "S5 more than twice"),
    (["classify", "S3", "--rules", "nope"], "guandan classify: error: unknown rules 'nope'"),
    (["solve", "--example", "--time-limit", "x"], "'x'"),
    (["bogus"], "'bogus'"),
    # an unknown option before the command named, at the top level (it asked for a
    # command, or blamed the command after it)
    (["--foo"], "guandan: error: unrecognized arguments: --foo (see guandan --help)"),
    (["--foo", "moves", "S3"], "guandan: error: unrecognized arguments: --foo (see guandan"),
    (["-x", "--help"], "guandan: error: unrecognized arguments: -x (see guandan --help)"),
    # named under the sub-command they were given to (it said "guandan: error: ...")
    (["solve", "--example", "--bogus"],
     "guandan solve: error: unrecognized arguments: --bogus (see guandan solve --help)"),
    (["classify", "S3", "S4"], "guandan classify: error: unrecognized arguments: S4"),
    # the user's text quoted on one line (a line break in it broke the error in two)
    (["classify", "S3", "x\ny"], "guandan classify: error: unrecognized arguments: x y (see"),
    (["solve", "--example", "--t=a\nb"], "ambiguous option: --t=a b could match"),
    (["moves", "", "--example"], "not both"),      # an empty HAND is a HAND
    # an option given twice was the last one silently (the engine protocol refuses it)
    (["solve", "--example", "--at-least", "1", "--at-least", "2"],
     "argument --at-least: given twice (1 and 2): give it once"),
    (["moves", "S5", "--level", "7", "--level", "8"],
     "argument --level: given twice ('7' and '8')"),
    (["play", "--seed", "1", "--seed", "1"], "argument --seed: given twice (1 and 1)"),
    (["engine", "--rules", "platform", "--rules", "standard"], "argument --rules: given twice"),
    # flags too (they passed)
    (["moves", "S3 S4", "--json", "--json"], "guandan moves: error: argument --json: given "
                                             "twice: give it once"),
    (["classify", "S3", "--json", "--json"], "guandan classify: error: argument --json: "
                                             "given twice: give it once"),
    (["solve", "--example", "--all-moves", "--fresh-tables", "--all-moves"],
     "argument --all-moves: given twice"),
    # an empty value was no log, or every network interface
    (["bot", "--stdio", "--log", ""], "guandan bot: error: argument --log: a file name, not ''"),
    (["serve", "--log", ""], "guandan serve: error: argument --log: a file name, not ''"),
    # seconds: the option's own message (not argparse's "invalid parse value")
    (["serve", "--timeout", "abc"], "guandan serve: error: argument --timeout: seconds above "
                                    "0 and at most 1e+06, not 'abc'"),
    (["bot", "--stdio", "--move-time", "0"], "argument --move-time: seconds above 0 and at "
                                             "most 1e+06, or inf, not '0'"),
    (["serve", "--host", ""], "argument --host: an address to listen on (0.0.0.0 or :: for "
                              "every interface), not ''"),
    # int() read these, the protocol's runners_up= does not
    (["analyze", "S3 S4", "--level", "7", "--runners-up", "1_0"],
     "argument --runners-up: a whole number of runner-up splits from 0 to 10**18 - 1, not '1_0'"),
    (["analyze", "S3 S4", "--level", "7", "--runners-up", "1" + "0" * 18], "to 10**18 - 1, not"),
    (["analyze", "S3 S4", "--level", "7", "--runners-up", "+1"], "not '+1'"),
    (["analyze", "S3 S4", "--level", "7", "--runners-up", "-1"], "not '-1'"),
    # an empty reading matched every reading
    (["moves", "S5", "--beat", "S4", "--beat-type", " "], "--beat-type ' ' is empty"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    assert_one_line_error(run_cli(args), message)


def test_moves_footer_counts_and_level_as_the_rank():
    """One move is "1 move"; the level is shown as its rank ("a" was echoed as typed)."""
    proc = run_cli(["moves", "S3 S4", "--level", "a", "--beat", "D3"])
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "-- 1 move that beats Single 3: D3 (hand S3 S4, level A)"
    proc = run_cli(["classify", "S3 S4", "--level", "a"])
    assert proc.stdout == "S3 S4: not a combination at level A\n"
    # the cards as typed, on one line whatever blanks and line breaks stood between them
    proc = run_cli(["classify", " S3\n\tS4  ", "--level", "a"])
    assert proc.stdout == "S3 S4: not a combination at level A\n"


def test_several_readings_suggest_a_beat_type_that_works(capsys):
    """RULES sec. 3, 4: with H7 wild at level 7, S3 S4 C5 C6 H7 is a straight from 2 or
    from 3; the error names both and suggests a --beat-type, which then picks one reading
    (README: a type and a rank, as they are shown)."""
    cards, beat = "S3 D4 S5 S6 S8 H7", "S3 S4 C5 C6 H7"
    assert main(["moves", cards, "--level", "7", "--beat", beat]) == 2
    err = capsys.readouterr().err
    suggested = err.split("e.g. --beat-type '")[1].split("'")[0]
    assert suggested in ("Straight 2", "Straight 3")
    assert main(["moves", cards, "--level", "7", "--beat", beat, "--beat-type", suggested,
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0] == ["PASS", "PASS", "PASS"]


def test_inf_seconds_only_where_the_option_takes_it(capsys):
    """bot --move-time takes inf (no bound); serve --timeout does not: its usage error,
    read by the parser alone (a taken value would start a server)."""
    parser = build_parser()
    assert parser.parse_args(["bot", "--stdio", "--move-time", "inf"]).move_time is None
    with pytest.raises(SystemExit) as exit:
        parser.parse_args(["serve", "--timeout", "inf"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "guandan serve: error: argument --timeout: seconds " \
        "above 0 and at most 1e+06, not 'inf' (see guandan serve --help)\n"


@pytest.mark.parametrize("raised, code, err", [
    (ValueError("bad cards\n  on two lines"), 2,
     "guandan classify: error: bad cards on two lines\n"),
    (OSError("disk\tgone"), 2, "guandan classify: error: disk gone\n"),
    (KeyboardInterrupt(), 130, "guandan classify: interrupted\n"),
])
def test_errors_of_a_command_are_one_line_and_its_status(monkeypatch, capsys, raised, code,
                                                         err):
    """cli.py: bad input (a ValueError, an OSError) is one line on stderr, line breaks
    and all made spaces, and status 2; Ctrl-C is one line and status 130, as a shell
    reports a command stopped by SIGINT (README: "the exit status is 130")."""
    def fail(*args, **kwargs):
        raise raised
    monkeypatch.setattr("guandan_core.cli.classify", fail)
    assert main(["classify", "S3"]) == code
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", err)


def test_main_leaves_the_output_s_error_handling_as_it_was(monkeypatch):
    """main() writes what the output's encoding cannot as escapes (cards typed '7♥ 8♥'
    echoed under an ASCII output), and puts the stream back as it found it afterwards: a
    program that calls main() keeps its strict output."""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(["classify", "7\u2665 8\u2665"]) == 0
    assert stream.errors == "strict"
    stream.flush()
    assert stream.buffer.getvalue() == b"7\\u2665 8\\u2665: not a combination at level 2\n"
