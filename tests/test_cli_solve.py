"""guandan solve on the command line (JSON output and errors)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from guandan_core.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _run(args, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "guandan_core.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_solve_example_json(capsys):
    assert main(["solve", "--example", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] is True and out["value"] == 1
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


def test_solve_readable_output():
    proc = _run(["solve", "--example"])
    assert proc.returncode == 0
    assert proc.stdout.startswith("value: +1 for team 0+2")
    assert "principal line:" in proc.stdout


@pytest.mark.parametrize("args, stdin, message", [
    (["solve", "missing.json"], None, "missing.json"),
    (["solve", "-"], "{bad json", "not valid JSON"),
    (["solve", "-"], json.dumps({"level": "2", "hands": [["S3"], ["XX"], [], []],
                                 "finished": [], "to_move": 0, "table": None}), "XX"),
    (["solve"], None, "--example"),
])
def test_solve_bad_input_one_line_no_traceback(args, stdin, message):
    proc = _run(args, stdin)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def test_output_cut_short_by_the_reader_is_not_an_error():
    """`guandan solve --example | head -1`: no error when the reader has gone away. The
    child writes into a pipe whose read end is already closed, so its writes always fail."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "guandan_core.cli", "solve", "--example"],
                              stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT, env=env,
                              timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 0
    assert proc.stderr.decode() == ""
