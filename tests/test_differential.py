"""The differential check of the search (tests/differential.py): it passes on the real
search, and it reports a searcher that answers differently, a value the minimax refutes,
and how to reproduce each disagreement."""

import json
import random

from differential import (KINDS, SWITCHED_OFF, SWITCHED_ON, check, draw, main,
                          make_searchers, new_count)
from guandan_core.position import Position
from reference_minimax import minimax
from solver import Searcher
from solver.search import _load


class _Wrapped:
    """A real searcher, whose methods a subclass changes (a broken search)."""

    def __init__(self):
        self.searcher = Searcher(10)

    def __getattr__(self, name):
        return getattr(self.searcher, name)


class _Negated(_Wrapped):
    """A searcher whose values are the real ones negated."""

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
    # every searcher compared at every position (but the few that gave up), and the
    # plain search's drops checked too, not only the general search's
    assert len(searchers) == 1 + len(SWITCHED_OFF) + len(SWITCHED_ON) == 11
    assert count["compared"] + count["stopped"] == 125 * (len(searchers) - 1), count
    assert count["stopped"] <= 5 and count["dropped plain"] >= 30, count


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


class _KeepsOnly(_Wrapped):
    """A searcher whose root keeps only the moves ``kept`` (a pruning that drops too
    much); its values are the real ones."""

    def __init__(self, kept):
        super().__init__()
        self.kept = kept

    def searched_moves(self, plain=False):
        if plain:
            raise ValueError("(as a position that is not plain)")
        return b"".join(m.record().tobytes() for m in self.kept)


# seat 0 leads: its A, which nobody beats, then its 3 goes out (+1); its 3 first is beaten
# by seat 1's K, who goes out first (-1)
_TWO_SINGLES = {"level": "2", "hands": [["S3", "SA"], ["SK"], ["S4"], ["S5"]],
                "finished": [], "to_move": 0, "table": None}


def test_a_dropped_move_better_than_every_kept_one_is_reported():
    """The drop check: a search that kept the worse of two singles and dropped the
    better one is reported, with both moves' values."""
    pos = Position.from_json(_TWO_SINGLES)
    three, ace = sorted(pos.legal_moves(), key=lambda m: m.key)
    count = new_count()
    found = check(pos, {"default": _KeepsOnly([three])}, Searcher(10, use_dominance=False),
                  10_000, count, False)
    assert found == [("dropped", "general search dropped Single A: SA (+1) for "
                                 "{'Single 3: S3': -1}")]
    # keeping the better one is no mistake: the drop is counted
    count = new_count()
    assert check(pos, {"default": _KeepsOnly([ace])}, Searcher(10, use_dominance=False),
                 10_000, count, False) == []
    assert count["dropped"] == 1


def test_a_best_move_that_does_not_reach_the_value_is_reported(monkeypatch):
    """The best-move check: a solve() whose best move does not reach its value is
    reported."""
    import dataclasses
    import differential
    pos = Position.from_json(_TWO_SINGLES)
    three = min(pos.legal_moves(), key=lambda m: m.key)
    real = differential.solve
    monkeypatch.setattr(differential, "solve", lambda position, **options: dataclasses.replace(
        real(position, **options), best=three))
    found = check(pos, {"default": Searcher(10)}, Searcher(10, use_dominance=False), 10_000,
                  new_count(), True)
    assert found == [("best move", {"best": "Single 3: S3", "value": 1,
                                    "reached (team 0)": -1})]


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
