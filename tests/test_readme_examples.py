"""The README's Python examples, run as they are written: each ```python block is read out
of README.md, so an example that drifts from the API fails here rather than in a user's
hands. (The README's shell commands are checked by tests/test_cli_*.py, PROTOCOL.md's
session by tests/test_protocol.py.)"""
import json
import re
import sys
import textwrap
import types
from pathlib import Path

from cli_process import cli_env
from guandan_core.cli_solve import EXAMPLE_POSITION
from guandan_core.position import Position
from solver import solve, solve_sampled

README = Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks():
    """Each ```python block of the README, dedented (one sits in a list item)."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^([ \t]*)```python\n(.*?)^\1```", text, re.S | re.M)
    return [textwrap.dedent(body) for _, body in blocks]


def _block(marker):
    found = [b for b in _python_blocks() if marker in b]
    assert len(found) == 1, (marker, len(found))
    return found[0]


def test_the_readme_has_the_python_examples_these_tests_run():
    """Three examples, each run by a test below; a new one needs its own test."""
    markers = ["EngineProcess(", "legal_moves(hand", "ray.remote("]
    blocks = _python_blocks()
    assert len(blocks) == len(markers), blocks
    assert all(sum(m in b for b in blocks) == 1 for m in markers), blocks


def test_the_python_api_example_runs_and_solves_its_position(capsys):
    """README "Python API": its own assertions hold (the pair of 9s is among the hand's
    moves, written "Pair 9: S9 D9"), and the position it solves, seat 0's ace against
    two single low cards with seat 2 out, is +3 for seat 0's team: the ace goes out
    first, uncontested, and seat 2 is already out, so the team took first and second place
    (RULES sec. 6)."""
    namespace = {}
    exec(compile(_block("legal_moves(hand"), "README.md", "exec"), namespace)
    printed = capsys.readouterr().out.split()
    assert namespace["result"].value == 3 and printed[0] == "3", printed
    assert str(namespace["result"].best) == "Single A: SA", printed
    assert [str(m) for _, m in namespace["result"].pv] == ["Single A: SA"]


def test_the_engine_process_example_solves_a_position_file(tmp_path, monkeypatch):
    """README "EngineProcess": run in a folder holding position.json (the built-in
    example position), its `result` is the in-process solver's answer. (The engine process
    finds the package as an installed one would, through the environment it inherits.)"""
    monkeypatch.setenv("PYTHONPATH", cli_env()["PYTHONPATH"])
    (tmp_path / "position.json").write_text(json.dumps(EXAMPLE_POSITION), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(_block("EngineProcess("), "README.md", "exec"), namespace)
    expected = solve(Position.from_json(EXAMPLE_POSITION), time_limit=5)
    result = namespace["result"]
    assert result.exact and (result.value, result.best) == (expected.value, expected.best)


class _RayDouble(types.ModuleType):
    """What the example uses of Ray (``remote`` and ``get``), with each task run in this
    process when its result is asked for: the test checks the example's calls against
    this package's API, not Ray (the tests run the same slices in a spawned process pool,
    tests/test_distributed.py)."""

    def __init__(self):
        super().__init__("ray")
        self.calls = []

    def remote(self, function):
        ray = self

        class Task:
            @staticmethod
            def remote(*args, **kwargs):
                ray.calls.append(kwargs)
                return lambda: function(*args, **kwargs)
        return Task

    def get(self, refs):
        return [ref() for ref in refs]


def test_the_ray_example_adds_its_slices_up_to_one_call(monkeypatch):
    """README "Across processes and machines": the four slices of 250 deals, merged, are
    exactly what its comment says, `solve_sampled(position, 1000, seed=7)`."""
    ray = _RayDouble()
    monkeypatch.setitem(sys.modules, "ray", ray)
    position = {"level": "2", "hands": [["S5", "SJ"], ["S3", "D7"], ["C6"], ["S4", "D6"]],
                "finished": [], "to_move": 0, "table": None}
    namespace = {"position": position}
    exec(compile(_block("ray.remote("), "README.md", "exec"), namespace)
    assert [call["first"] for call in ray.calls] == [0, 250, 500, 750], ray.calls
    whole = solve_sampled(position, 1000, seed=7)
    assert namespace["result"].samples == 1000 and namespace["result"] == whole

