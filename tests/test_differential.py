"""The differential check of the search (tests/differential.py): it passes on the real
search, and it reports a searcher that answers differently, a value the minimax refutes,
and how to reproduce each disagreement."""

import json
import random

from differential import KINDS, check, draw, main, make_searchers, new_count
from guandan_core.position import Position
from reference_minimax import minimax
from solver import Searcher
from solver.search import _load


class _Negated:
    """A searcher whose values are the real ones negated (a broken search)."""

    def __init__(self):
        self.searcher = Searcher(10)

    def __getattr__(self, name):
        return getattr(self.searcher, name)

    def search(self, alpha, beta):
        return -self.searcher.search(-beta, -alpha)


# seat 0 goes out with its black joker, and seat 2 then with its red pair and black joker,
# which nobody can beat: +3 for team 0
_POSITION = {"level": "2", "hands": [["SB"], ["C3", "D4"], ["SB", "HR", "HR"], ["C5"]],
             "finished": [], "to_move": 0, "table": None}


def test_the_real_search_passes_every_check_of_each_kind():
    """Twenty-five positions of each kind: no disagreement, and every check had work to
    do. (It drew kinds 0, 3, 1 and 3 again, the first four draws of KINDS, so never the
    spaced ranks of kind 2.)"""
    assert sorted(set(KINDS)) == [0, 1, 2, 3, 4]
    count = new_count()
    searchers, reference = make_searchers()
    rng = random.Random(5)
    for kind in sorted(set(KINDS)):
        checked = 0
        while checked < 25:
            pos, _ = draw(rng, kind)
            if pos is None or pos.is_over:
                continue
            assert check(pos, searchers, reference, 20_000, count, checked % 10 == 0) == [], \
                pos.to_json()
            checked += 1
    assert count["minimax"] >= 50 and count["dropped"] >= 60 and \
        count["best moves"] == 3 * len(set(KINDS)), count


def test_a_searcher_that_answers_differently_is_reported_with_both_values():
    pos = Position.from_json(_POSITION)
    assert minimax(pos, [10_000], {}) == 3
    searchers = {"default": Searcher(10), "negated": _Negated()}
    count = new_count()
    found = check(pos, searchers, Searcher(10, use_dominance=False), 10_000, count, False)
    assert found == [("values", {"default": 3, "negated": -3})]
    assert count["minimax"] == 1


def test_a_value_the_minimax_refutes_is_reported():
    pos = Position.from_json(_POSITION)
    count = new_count()
    found = check(pos, {"default": _Negated()}, Searcher(10, use_dominance=False), 10_000,
                  count, False)
    assert found == [("minimax", {"minimax": 3, "default": -3})]


def test_a_variant_at_its_node_limit_is_left_out_and_counted(monkeypatch):
    import differential
    monkeypatch.setattr(differential, "VARIANT_NODE_LIMIT", 1)
    pos = Position.from_json(_POSITION)
    searchers = {"default": Searcher(10), "use_tt=False": Searcher(10, use_tt=False)}
    count = new_count()
    assert check(pos, searchers, Searcher(10, use_dominance=False), 10_000, count, True) == []
    assert count["stopped"] == 1 and count["best moves"] == 1


def test_the_command_line_prints_each_disagreement_as_json_and_fails(monkeypatch, capsys):
    """Exit status 1, one JSON line a disagreement with the position and its rules (enough
    to load it again), the counts on stderr."""
    import differential
    monkeypatch.setattr(differential, "check",
                        lambda pos, *args, **kwargs: [("values", {"default": 1, "x": -1})])
    assert main(["--positions", "3", "--seed", "4"]) == 1
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3 and {line["check"] for line in lines} == {"values"}
    for line in lines:
        pos = Position.from_json(line["position"], rules=line["rules"])
        searcher = Searcher(10)
        _load(searcher, pos)                # a valid position the search takes
    assert "3 positions" in err and "3 disagreements" in err


def test_the_command_line_passes_on_the_real_search(capsys):
    assert main(["--positions", "12", "--seed", "9"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "12 positions" in err and "0 disagreements" in err
