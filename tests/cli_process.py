"""The command line run as a user runs it: ``python -m guandan_core.cli`` in a subprocess,
importing the packages this test run imports."""

import inspect
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import guandan_core

ROOT = Path(__file__).resolve().parent.parent
# Where this run imports the packages from: the checkout (in-place build) or a CMake
# build's python/ directory. The subprocesses must test the same build, not the checkout.
PACKAGES = Path(guandan_core.__file__).resolve().parent.parent
# the sanitizer build's tests (ctest preloads the ASan runtime): its allocator pads and
# quarantines memory, and address-space limits do not mix with its shadow memory
UNDER_SANITIZER = "asan" in os.environ.get("LD_PRELOAD", "")


def vm_size() -> int:
    """The bytes of this process's address space (Linux: VmSize of /proc/self/status)."""
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024


# source for the start of a child's code (Linux): vm_size() as above, limit(spare) caps its
# address space at what it uses now plus `spare` bytes, unlimit() lifts the cap again
ADDRESS_LIMIT = "import resource\n" + inspect.getsource(vm_size) + """
def limit(spare):
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + spare, resource.RLIM_INFINITY))
def unlimit():
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)
"""


def cli_env(drop: tuple[str, ...] = (), **extra: str) -> dict:
    """The environment for a command-line subprocess: the packages' directory first on the
    import path, the current directory kept off it (Python 3.11+), stdout buffered (no
    PYTHONUNBUFFERED), variables in ``drop`` removed and ``extra`` set. Run such subprocesses in ``PACKAGES``: Python 3.10 ignores
    ``PYTHONSAFEPATH`` and puts the current directory first, where a CMake build's tests
    would otherwise import the checkout's unbuilt packages."""
    env = dict(os.environ, PYTHONSAFEPATH="1",
               PYTHONPATH=str(PACKAGES) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # stdout buffered as a user's is: a test machine's PYTHONUNBUFFERED=1 hid that a short
    # output reached a closed pipe or a full disk only at the interpreter's exit
    env.pop("PYTHONUNBUFFERED", None)
    for name in drop:
        env.pop(name, None)
    env.update(extra)
    return env


def run_python(code: str, timeout: float = 120, **env_extra: str) -> subprocess.CompletedProcess:
    """``python -c CODE`` with the packages this test run imports (see :func:`cli_env`;
    ``env_extra`` set in its environment); the finished process, output as text."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=PACKAGES, env=cli_env(**env_extra), timeout=timeout)


def run_cli(args, stdin=None):
    """``guandan ARGS`` with ``stdin`` as its input; the finished process, output as text."""
    return subprocess.run([sys.executable, "-m", "guandan_core.cli", *args], input=stdin,
                          capture_output=True, text=True, cwd=PACKAGES, env=cli_env(), timeout=120)


def assert_one_line_error(proc, message: str) -> None:
    """Bad input: exit status 2, nothing on stdout, one line on stderr that names
    ``message``, no traceback."""
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def interrupted_cli(args, busy_seconds: float = 2.0) -> tuple:
    """``guandan ARGS`` given Ctrl-C (SIGINT) once it has used ``busy_seconds`` of CPU
    time, so surely while it searches; (the finished process, its stdout, its stderr,
    seconds from the signal to its end). Linux only (reads /proc)."""
    # as a terminal would start it: a test run in the background (CI) ignores SIGINT, and
    # a child inherits an ignored signal
    proc = subprocess.Popen([sys.executable, "-m", "guandan_core.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=PACKAGES, env=cli_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        give_up = time.monotonic() + 60
        while cpu_seconds(proc.pid) < busy_seconds:
            assert proc.poll() is None and time.monotonic() < give_up
            time.sleep(0.05)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc, out, err, time.monotonic() - sent


def soon(condition, within: float = 10) -> bool:
    """Whether ``condition()`` holds within ``within`` seconds (asked every 50 ms): what a
    test waits for instead of sleeping for it."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True
