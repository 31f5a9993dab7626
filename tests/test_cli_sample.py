"""guandan sample on the command line: moves valued over random deals of the hidden hands."""

import json
import random
import sys

import pytest

from cli_process import assert_one_line_error, interrupted_cli, run_cli
from guandan_core import Hand
from guandan_core.cli import main
from guandan_core.cli_solve import EXAMPLE_POSITION
from solver.sampling import solve_sampled

SMALL = {"level": "2", "hands": [["S5", "H5", "SJ"], ["S3", "HA", "D7"], ["C6", "CQ"],
                                 ["S4", "SK", "D6"]], "finished": [], "to_move": 0,
         "table": None}


def test_the_json_answer_is_solve_sampled_s(tmp_path, capsys):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(SMALL))
    assert main(["sample", str(path), "--json", "--deals", "12", "--seed", "3",
                 "--known", "3:SK; 1:HA", "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = solve_sampled(SMALL, 12, seed=3, known={3: "SK", 1: "HA"}).to_json()
    assert out["seed"] == 3
    for key in ("best", "samples", "solved", "moves", "nodes"):
        assert out[key] == expected[key], key
    assert out["samples"] == out["solved"] == 12
    assert sum(out["moves"][0]["values"].values()) == 12


def test_the_example_in_text(capsys):
    """The built-in position (level Q, seat 0 on lead: team 0+2's values), every move with
    its mean and its count of each value under a header naming those columns; seed 0 is
    a seed (the default's); every deal solved, so none is said not to be counted."""
    assert main(["sample", "--example", "--deals", "4", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    expected = solve_sampled(EXAMPLE_POSITION, 4, seed=0)
    lines = out.splitlines()
    assert lines[0] == "position: level Q, seat 0 on lead"
    assert "seat 1: 6 cards, hidden" in out and "seat 0: C5 D6 H7 C7 C8 D9" in out
    assert "nodes: " + str(expected.nodes) in out
    assert "deals: 4 (seed 0)" in out and "4 solved" in out and "not counted" not in out
    assert f"best move: {expected.best}" in out
    heading = lines.index("moves, values for team 0+2 (best: deals where the move keeps "
                          "that deal's value):")
    assert lines[heading + 1].split() == ["mean", "best",
                                          *(f"{v:+d}" for v in expected.moves[0].values), "move"]
    rows = [line.split() for line in out.splitlines() if "/4" in line]
    assert len(rows) == len(expected.moves)
    for row, m in zip(rows, expected.moves):
        assert float(row[0]) == pytest.approx(m.mean, abs=0.005)
        assert row[1] == f"{m.best}/4" and [int(x) for x in row[2:8]] == list(m.values.values())
        assert " ".join(row[8:]).startswith(str(m.move))


def test_a_slice_of_one_deal_seen_from_seat_1_with_known_cards(tmp_path, capsys):
    """Seat 1 to move: the values are team 1+3's; the known cards get a line of their
    own; a slice of one deal is named as that deal (not "3 to 3")."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SMALL, to_move=1)))
    assert main(["sample", str(path), "--deals", "1", "--seed", "5", "--first", "3",
                 "--known", "3:SK"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:7] == ["position: level 2, seat 1 on lead", "  seat 0: 3 cards, hidden",
                         f"  seat 1: {Hand('S3 HA D7')}", "  seat 2: 2 cards, hidden",
                         "  seat 3: 3 cards, hidden", "  seat 3 is known to hold SK",
                         "deals: 1 (seed 5, deal 3), the hidden cards shared out at random; "
                         "1 solved"]
    assert lines[7].startswith("moves, values for team 1+3 ")
    # the last deal number (--first + --deals is 2**63 at most, that bound included)
    assert main(["sample", str(path), "--deals", "1", "--first", str(2**63 - 1)]) == 0
    assert f"(seed 0, deal {2**63 - 1}), " in capsys.readouterr().out


def test_a_limit_that_stops_deals_is_reported(capsys):
    assert main(["sample", "--example", "--deals", "3", "--node-limit", "10",
                 "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "0 solved" in out and "3 not counted: a limit stopped them" in out
    assert "best move" not in out


@pytest.mark.parametrize("args, message", [
    (["--example", "--known", "3:SK; 3:D4"], "--known: seat 3 is given twice"),
    (["--example", "--known", "5:SK"], "--known: '5:SK' is not SEAT:CARDS"),
    (["--example", "--known", "SK"], "--known: 'SK' is not SEAT:CARDS"),
    (["--example", "--known", "1:XX"], "--known: seat 1: unknown card 'XX'"),
    (["--example", "--known", "1: ;3:SK"], "--known: '1:' names no cards"),
    # named as the option, as the errors above are (they said 'known:')
    (["--example", "--known", "0:C5"], "error: --known: 0 is not a seat whose hand is hidden "
                                       "from seat 0"),
    (["--example", "--known", "1:S3"], "error: --known: S3 is not among the cards hidden "
                                       "from seat 0"),
    (["--example", "--deals", "0"], "--deals: a whole number of deals from 1 to 1000000"),
    (["--example", "--deals", "1000001"], "--deals: a whole number of deals from 1 to 1000000, "
                                          "not '1000001'"),
    (["--example", "--seed", "-1"], "--seed: a whole number from 0 to 2**63 - 1"),
    (["--example", "--rules", "house"], "error: unknown rules 'house' (known: standard, "
                                        "platform, no-sf-bomb, long-sequences)"),
    # named as the options (it said "first + n", solve_sampled's arguments)
    (["--example", "--first", str(2**63 - 1), "--deals", "2"],
     "error: --first + --deals must be at most 2**63 (deal numbers are below it), not "
     f"{2**63 - 1} + 2"),
    (["--example", "--first", str(2**63 - 1)], f"not {2**63 - 1} + 20"),
    ([], "give a POSITION file (or - for stdin), or --example"),
    (["--example", "pos.json"], "not both"),
])
def test_bad_input_is_one_line(args, message):
    assert_one_line_error(run_cli(["sample", *args]), message)


def test_a_bad_position_from_stdin_is_named():
    proc = run_cli(["sample", "-"], stdin=json.dumps(dict(SMALL, to_move=7)))
    assert_one_line_error(proc, "'-': ")
    proc = run_cli(["sample", "-"], stdin=json.dumps([SMALL, SMALL]))
    assert_one_line_error(proc, "holds 2 positions: guandan sample takes one")
    over = dict(SMALL, hands=[[], ["S3"], [], ["S4"]], finished=[0, 2], to_move=None)
    # (named as the other bad positions are: the solver's own refusal names no source)
    assert_one_line_error(run_cli(["sample", "-"], stdin=json.dumps(over)),
                          "'-': the hand is already over: nothing to solve")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_ends_it_at_once(tmp_path, threads):
    """Ctrl-C while whole 27-card deals are being solved (far beyond any time allowed):
    the searches stop within moments, and what the deals searched so far give is printed
    (none finished: nothing counted, the deals cut short named as Ctrl-C's), one line on
    stderr, status 130; with --json, a result that reads back (--merge takes it)."""
    import re
    from guandan_core.match import deal
    from guandan_core.position import Position
    from solver.sampling import read_sampled
    path = tmp_path / "deal.json"
    path.write_text(Position(7, deal(random.Random(3)), to_move=0).to_json_str())
    proc, out, err, seconds = interrupted_cli(["sample", str(path), "--threads", threads])
    assert seconds < 10 and proc.returncode == 130
    searched = re.fullmatch(r"guandan sample: interrupted; (\d+) of 20 deals searched, "
                            r"0 counted\n", err)
    assert searched and 1 <= int(searched[1]) <= int(threads)
    assert f"\ndeals: {searched[1]} (seed 0), the hidden cards shared out at random; " \
        f"0 solved\n  ({searched[1]} not counted: Ctrl-C stopped them before every move " \
        f"had its value)\n" in out
    proc, out, err, seconds = interrupted_cli(["sample", str(path), "--threads", threads,
                                               "--json", "--node-limit", "10000000000"])
    assert seconds < 10 and proc.returncode == 130
    result = read_sampled(out, json.loads(path.read_text()))
    assert result.solved == 0 and result.deals == ((0, result.samples),)
    assert err == f"guandan sample: interrupted; {result.samples} of 20 deals searched, " \
                  f"0 counted\n"


def test_one_card_is_one_card(tmp_path, capsys):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SMALL, hands=[["S5", "H5"], ["S3"], [], ["S4", "SK"]],
                                    finished=[2])))
    assert main(["sample", str(path), "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "seat 1: 1 card, hidden" in out and "seat 3: 2 cards, hidden" in out
    assert "seat 2: (out)" in out


def test_a_seat_s_view_is_read_too(tmp_path, capsys):
    """The seat to move's view (its hand, the hidden cards or the cards played, every
    seat's number of cards): the same answer as a position with those hands."""
    view = {"level": "2", "seat": 0, "hand": ["S5", "H5", "SJ"],
            "unseen": ["S3", "HA", "D7", "C6", "CQ", "S4", "SK", "D6"],
            "cards_left": [3, 3, 2, 3], "finished": [], "table": None}
    (tmp_path / "view.json").write_text(json.dumps(view))
    (tmp_path / "pos.json").write_text(json.dumps(SMALL))
    outs = []
    for name in ("view.json", "pos.json"):
        assert main(["sample", str(tmp_path / name), "--json", "--deals", "6"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["moves"] == outs[1]["moves"] and outs[0]["nodes"] == outs[1]["nodes"]
    bad = run_cli(["sample", "-"], stdin=json.dumps(dict(view, cards_left=[3, 3, 3, 3])))
    assert_one_line_error(bad, "'-': the other seats hold 9 cards")
    assert_one_line_error(run_cli(["sample", "-"], stdin='"text"'),
                          "'-': a position is a JSON object, not a string")


# RULES sec. 8: seat 1 paid SA to seat 0, which returned S3 to it; seat 0 sees S4 in its
# hand and every other card played (played_by: all by seat 0, which is all that matters
# here but that seat 1 played no S3), but S3, HR and D5. Seat 1 surely holds
# the S3 it got back (it has not played it), and nothing above the ace it paid but wild
# cards: every deal gives it the S3, and seats 2 and 3 the HR and D5 in either order.
TRIBUTE_VIEW = {"level": "2", "seat": 0, "hand": ["S4"], "cards_left": [1, 1, 1, 1],
                "finished": [], "table": None,
                "exchanges": [[1, 0, "SA"], [0, 1, "S3"]]}
_DECKS = Hand(list(range(54)) * 2).cards()
for _card in ("S4", "S3", "HR", "D5"):
    _DECKS.remove(_card)
TRIBUTE_VIEW["played_by"] = [_DECKS, [], [], []]


def test_sec8_a_view_s_tribute_decides_the_deals_on_the_command_line(tmp_path, capsys):
    """A view's exchanges and resisted are the view's, not its position's: guandan sample
    deals as solve_sampled does from the view (the same digest, the same answer), and
    known cards that the tribute contradicts are refused (it dealt the bare pool, the
    S3 to any seat, and took --known "1:D5")."""
    path = tmp_path / "view.json"
    path.write_text(json.dumps(TRIBUTE_VIEW))
    assert main(["sample", str(path), "--json", "--deals", "8", "--seed", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = solve_sampled(TRIBUTE_VIEW, 8, seed=2).to_json()
    assert {**out, "seconds": 0} == {**expected, "seconds": 0}
    bare = {k: v for k, v in TRIBUTE_VIEW.items() if k != "exchanges"}
    assert out["view"] != solve_sampled(bare, 8, seed=2).to_json()["view"]
    # the deals themselves: seat 1 always holds the S3
    from solver.sampling import sample_deals
    assert {d.hand(1).cards()[0] for d in sample_deals(TRIBUTE_VIEW, 40, seed=2)} == {"S3"}
    # a saved result of the view merges; one of the bare view does not
    part = tmp_path / "part.json"
    part.write_text(json.dumps(out))
    assert main(["sample", str(path), "--json", "--merge", str(part)]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == out["moves"]
    (tmp_path / "bare.json").write_text(json.dumps(bare))
    bad = run_cli(["sample", str(tmp_path / "bare.json"), "--merge", str(part)])
    assert bad.returncode == 2 and "another position" in bad.stderr, bad.stderr
    assert_one_line_error(run_cli(["sample", str(path), "--known", "1:D5"]),
                          "--known: seat 1 holds 1 cards, not the 2 given")


def test_slices_merged_on_the_command_line_are_the_whole_run(tmp_path, capsys):
    """`--first` cuts a run into slices; `--merge` adds their saved --json results up to
    exactly the run's answer (text too), whatever order the files come in."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(SMALL))
    assert main(["sample", str(path), "--json", "--deals", "9", "--seed", "4"]) == 0
    whole = json.loads(capsys.readouterr().out)
    parts = []
    for first, n in ((0, 2), (2, 4), (6, 3)):
        assert main(["sample", str(path), "--json", "--deals", str(n), "--seed", "4",
                     "--first", str(first)]) == 0
        parts.append(tmp_path / f"part{first}.json")
        parts[-1].write_text(capsys.readouterr().out)
        assert json.loads(parts[-1].read_text())["deals"] == [[first, first + n]]
    assert main(["sample", str(path), "--json", "--merge", *map(str, parts[::-1])]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert {**merged, "seconds": 0} == {**whole, "seconds": 0}
    assert main(["sample", str(path), "--merge", *map(str, parts)]) == 0
    text = capsys.readouterr().out
    assert main(["sample", str(path), "--seed", "4", "--deals", "9"]) == 0
    assert text.splitlines()[:-1] == capsys.readouterr().out.splitlines()[:-1]
    # a slice of its own: its place in the run is shown
    assert main(["sample", str(path), "--deals", "2", "--seed", "4", "--first", "6"]) == 0
    assert "deals: 2 (seed 4, deals 6 to 7)" in capsys.readouterr().out
    # slices with a gap: the deals merged are named
    assert main(["sample", str(path), "--merge", str(parts[0]), str(parts[2])]) == 0
    assert "deals: 5 (seed 4, deals 0 to 1, 6 to 8)" in capsys.readouterr().out


def test_merges_of_the_example(tmp_path, capsys):
    """--merge solves nothing, so --deals is refused with it; a result of the example
    with known cards merges when the same --known is given."""
    plain = tmp_path / "r.json"
    plain.write_text(json.dumps(solve_sampled(EXAMPLE_POSITION, 2).to_json()))
    assert_one_line_error(run_cli(["sample", "--example", "--merge", str(plain), "--deals", "3"]),
                          "--merge adds up saved results and solves nothing: --deals is not "
                          "taken with it")
    known = tmp_path / "rk.json"
    known.write_text(json.dumps(solve_sampled(EXAMPLE_POSITION, 2, known={1: "D4"}).to_json()))
    assert main(["sample", "--example", "--known", "1:D4", "--merge", str(known), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["samples"] == merged["solved"] == 2


def test_progress_names_each_deal_as_it_is_solved(capsys):
    """--progress: a stderr line as each deal is solved, headed by the position, how many
    deals are done and the time so far, with the deal's number, value and best move, or
    that a limit left it out; the answer on stdout is the same as without it."""
    import re
    from solver import solve
    from solver.sampling import sample_deals
    assert main(["sample", "--example", "--deals", "6", "--first", "2", "--json"]) == 0
    plain = capsys.readouterr()
    assert main(["sample", "--example", "--deals", "6", "--first", "2", "--json",
                 "--threads", "2", "--progress"]) == 0
    shown = capsys.readouterr()
    assert plain.err == "" and json.loads(shown.out)["moves"] == json.loads(plain.out)["moves"]
    lines = shown.err.splitlines()
    expected = {}
    for number, deal in zip(range(2, 8), sample_deals(EXAMPLE_POSITION, 6, seed=0, first=2)):
        alone = solve(deal)
        expected[number] = f"value {alone.value:+d}, best move: {alone.best}"
    seen = {}
    for done, line in enumerate(lines, 1):
        m = re.fullmatch(rf"example \({done} of 6, \d+\.\d\d s\): deal (\d): (.+)", line)
        assert m, line
        seen[int(m[1])] = m[2]
    assert seen == expected
    assert main(["sample", "--example", "--deals", "2", "--node-limit", "1", "--progress"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("): ")[1] for line in lines] == [
        f"deal {i}: left out (stopped before every move had its value)"
        for i in (0, 1)]


def test_progress_every_says_what_each_long_deal_is_still_doing(capsys):
    """--progress-every S (which implies --progress): between the deals' lines, every S
    seconds of a deal's search a line saying what it is still doing, headed as the others
    (the deals done so far, the time) and naming the deal; the deals' own lines and stdout
    are those of --progress."""
    import re
    assert main(["sample", "--example", "--deals", "4", "--json", "--progress"]) == 0
    plain = capsys.readouterr()
    assert main(["sample", "--example", "--deals", "4", "--json", "--progress-every",
                 "1e-6"]) == 0
    shown = capsys.readouterr()
    assert json.loads(shown.out)["moves"] == json.loads(plain.out)["moves"]
    still = [line for line in shown.err.splitlines() if " still " in line]
    assert still
    head = r"example \(\d of 4, \d+\.\d\d s\): deal [0-3]: "
    for line in still:
        assert re.fullmatch(head + r"(still scoring move \d+ of \d+, .+|still searching for "
                                   r"the value.*|value [+-]\d; still choosing the best move)",
                            line), line

    def deals_lines(text):      # (what each deal's own line says, in any order)
        return sorted(line.split("): ", 1)[1] for line in text.splitlines()
                      if " still " not in line)

    assert deals_lines(shown.err) == deals_lines(plain.err) and len(deals_lines(plain.err)) == 4


def test_bad_merges_are_one_line(tmp_path):
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(SMALL))
    part = tmp_path / "part.json"
    part.write_text(json.dumps(solve_sampled(SMALL, 3, seed=1).to_json()))
    other = tmp_path / "other.json"
    other.write_text(json.dumps(solve_sampled(SMALL, 3, seed=2, first=3).to_json()))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    text = tmp_path / "text.json"
    text.write_text('"abc"')
    limited = tmp_path / "limited.json"
    limited.write_text(json.dumps(solve_sampled(SMALL, 3, seed=1, first=3,
                                                node_limit=10**6).to_json()))
    wrong = tmp_path / "wrong.json"
    got = solve_sampled(SMALL, 3, seed=1, first=3).to_json()
    got["moves"][0]["move"] = ["Bomb", "5", ["S5", "H5", "C5", "D5"]]
    wrong.write_text(json.dumps(got))
    for args, message in [
        ([str(part), str(part)], "the results search some deals twice: deals 0 to 2 and 0 "
                                 "to 2"),
        ([str(part), str(other)], "the results are of different seeds: 1, 2"),
        ([str(part), str(limited)], "the results were solved under different node limits: "
                                    "1000000, none (none: no limit)"),
        ([str(broken)], f"{str(broken)!r}: not valid JSON"),
        # (a JSON string was parsed again as JSON text: "not valid JSON")
        ([str(text)], f"{str(text)!r}: a sampled result is a JSON object, not 'abc'"),
        ([str(wrong)], f"{str(wrong)!r}: moves[0].move: "),
        # (named once: it was "'.../missing.json': cannot read '.../missing.json': ...")
        ([str(tmp_path / "missing.json")], f"cannot read {str(tmp_path / 'missing.json')!r}: "),
    ]:
        proc = run_cli(["sample", str(path), "--merge", *args])
        assert_one_line_error(proc, message)
        assert proc.stderr.count(args[-1]) <= 1, proc.stderr       # (named once at most)
    for option in (["--deals", "3"], ["--seed", "0"], ["--first", "1"], ["--threads", "1"],
                   ["--node-limit", "5"], ["--time-limit", "1"], ["--progress"],
                   ["--progress-every", "1"]):
        name = option[0]
        assert_one_line_error(run_cli(["sample", str(path), "--merge", str(part), *option]),
                              f"--merge adds up saved results and solves nothing: {name} "
                              f"is not taken with it")
    assert_one_line_error(run_cli(["sample", "-", "--merge", "-"], stdin="{}"),
                          "stdin (-) can be read once: as the position or as one result")
    # a result of the position with known cards merges only with those cards given
    known = tmp_path / "known.json"
    known.write_text(json.dumps(solve_sampled(SMALL, 2, seed=1, known={3: "SK"}).to_json()))
    assert_one_line_error(run_cli(["sample", str(path), "--merge", str(known)]),
                          "the result is of another position, other known cards or other "
                          "rules")
    ok = run_cli(["sample", str(path), "--merge", str(known), "--known", "3:SK", "--json"])
    assert ok.returncode == 0 and json.loads(ok.stdout)["solved"] == 2
    assert_one_line_error(run_cli(["sample", "--example", "--first", "-2"]),
                          "--first: a whole number of deals from 0 to 2**63 - 1")


def test_deals_a_limit_stops_are_counted_apart_from_those_solved(capsys):
    """README (guandan sample): a deal a limit stops before every move has its value is not
    counted. With some deals stopped and some solved, the line names how many were left
    out (searched less solved), and each move's best count is out of the deals solved.
    (What a node limit leaves depends only on the deals: each is solved from empty
    tables, API: solve_sampled.)"""
    result = solve_sampled(EXAMPLE_POSITION, 6, seed=0, node_limit=25600, threads=1)
    assert 0 < result.solved < result.samples == 6     # (the case this test is for)
    assert main(["sample", "--example", "--deals", "6", "--node-limit", "25600"]) == 0
    out = capsys.readouterr().out
    solved = result.solved
    assert f"deals: 6 (seed 0), the hidden cards shared out at random; {solved} solved" in out
    assert f"  ({6 - solved} not counted: a limit stopped them before every move had its " \
           "value)" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and "/" in line]
    assert len(rows) == len(result.moves)
    for row, m in zip(rows, result.moves):
        assert row[1] == f"{m.best}/{solved}"
        assert sum(int(x) for x in row[2:8]) == solved
    assert f"best move: {result.best}" in out


def test_a_time_limit_of_0_stops_every_deal(capsys):
    """--time-limit S: seconds per deal, a deal it stops not counted (README). 0 seconds
    is past at the search's first check, long before the example's deals are solved
    (each takes thousands of nodes, see the node limit test above)."""
    assert main(["sample", "--example", "--deals", "3", "--time-limit", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["samples"], out["solved"], out["moves"], out["best"]) == (3, 0, [], None)


def test_the_defaults_are_20_deals_from_seed_0_starting_at_deal_0(capsys):
    """README: --deals N, default 20, from --seed S, default 0; --first F default 0."""
    assert main(["sample", "--example", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["sample", "--example", "--json", "--deals", "20", "--seed", "0",
                 "--first", "0"]) == 0
    explicit = json.loads(capsys.readouterr().out)
    assert default["samples"] == 20 and default["deals"] == [[0, 20]] and default["seed"] == 0
    assert {**default, "seconds": 0} == {**explicit, "seconds": 0}


def test_the_rules_option_decides_the_moves(tmp_path, capsys):
    """RULES sec. 9: under no-sf-bomb a straight flush is no bomb, so the five hearts in a
    row are played as a plain straight; under the standard rules they are a straight flush."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SMALL, hands=[["H5", "H6", "H7", "H8", "H9"],
                                                  *SMALL["hands"][1:]])))
    kinds = {}
    for rules in ("standard", "no-sf-bomb"):
        assert main(["sample", str(path), "--json", "--deals", "2", "--rules", rules]) == 0
        moves = json.loads(capsys.readouterr().out)["moves"]
        kinds[rules] = {m["move"][0] for m in moves if len(m["move"][2]) == 5}
    assert kinds == {"standard": {"StraightFlush"}, "no-sf-bomb": {"Straight"}}


def test_a_seat_to_beat_a_play_names_the_plays_owner(tmp_path, capsys):
    """RULES sec. 7: "table" is the last play with its owner; the text names that owner
    (seat 3 here), not the seat to move."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SMALL, hands=[*SMALL["hands"][:3], ["SK", "D6"]],
                                    table={"owner": 3, "play": ["Single", "4", ["S4"]]})))
    assert main(["sample", str(path), "--deals", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("position: level 2, seat 0 to beat seat 3's ") and "S4" in first


def test_known_cards_are_listed_in_seat_order(tmp_path, capsys):
    """--known "3:SK; 1:HA": a line for each seat, in seat order as the seats' own lines
    are, whatever order the option names them in."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(SMALL))
    assert main(["sample", str(path), "--deals", "2", "--known", "3:SK; 1:HA"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "is known" in line]
    assert lines == ["  seat 1 is known to hold HA", "  seat 3 is known to hold SK"]


def test_every_equivalent_move_is_named_on_its_row(tmp_path, capsys):
    """API (solve: equivalent): moves grouped as one (here the singles of three 5s of other
    suits) are one row, the move, then "(the same with ...)" listing the others, each
    by its cards, apart by commas (README's example shows one)."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(dict(SMALL, hands=[["S5", "H5", "C5"], *SMALL["hands"][1:]])))
    assert main(["sample", str(path), "--deals", "2"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "Single 5: " in line]
    assert len(rows) == 1
    move, same = rows[0].split("Single 5: ")[1].split("   (the same with ")
    assert same.endswith(")")
    others = same[:-1].split(", ")
    assert len(others) == 2 and sorted([move, *others]) == ["C5", "H5", "S5"]


def test_results_merged_without_a_seed_say_so(tmp_path, capsys):
    """API (SampledResult.seed): None for a fresh seed, a stream no one can name again;
    such results merged name no seed (and no deal numbers)."""
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(SMALL))
    part = tmp_path / "part.json"
    part.write_text(json.dumps(solve_sampled(SMALL, 2, seed=None).to_json()))
    assert main(["sample", str(path), "--merge", str(part)]) == 0
    assert "deals: 2 (no one seed), the hidden cards shared out at random; 2 solved" \
        in capsys.readouterr().out
