"""The command line run as a user runs it: ``python -m guandan_core.cli`` in a subprocess,
with this checkout first on the import path."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run_cli(args, stdin=None):
    """``guandan ARGS`` with ``stdin`` as its input; the finished process, output as text."""
    return subprocess.run([sys.executable, "-m", "guandan_core.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=cli_env(), timeout=120)


def assert_one_line_error(proc, message: str) -> None:
    """Bad input: exit status 2, nothing on stdout, one line on stderr that names
    ``message``, no traceback."""
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr
