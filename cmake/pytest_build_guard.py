"""pytest plugin used by ctest (`-p pytest_build_guard`): run the suite against the CMake build.

Environment (set by CMakeLists.txt):
    GUANDAN_BUILD_PYTHON_DIR   <build>/python, where the build assembled the packages
    GUANDAN_BUILD_PACKAGES     comma-separated top-level packages (guandan_core,solver)
    GUANDAN_BUILD_EXTENSIONS   comma-separated compiled modules (guandan_core._kernels)

`-p` plugins are imported before any conftest.py or test module, so importing the
packages here pins them in sys.modules: a later sys.path entry (a conftest directory, the
repository root) can no longer shadow them with the source tree's copy. The header of the
report names the files that were loaded, and the session fails if any module of those
packages ended up being imported from outside the build directory.
"""

from __future__ import annotations

import importlib
import os
import sys

BUILD_DIR = os.path.realpath(os.environ["GUANDAN_BUILD_PYTHON_DIR"])
PACKAGES = [p for p in os.environ.get("GUANDAN_BUILD_PACKAGES", "").split(",") if p]
EXTENSIONS = [m for m in os.environ.get("GUANDAN_BUILD_EXTENSIONS", "").split(",") if m]


def _inside_build(path: str | None) -> bool:
    return path is not None and os.path.realpath(path).startswith(os.path.join(BUILD_DIR, ""))


def _foreign_modules() -> list[str]:
    bad = []
    for name, module in list(sys.modules.items()):
        if any(name == p or name.startswith(p + ".") for p in PACKAGES):
            path = getattr(module, "__file__", None)
            if path is not None and not _inside_build(path):
                bad.append(f"{name} from {path}")
    return sorted(bad)


_loaded = {}
for _name in EXTENSIONS:  # importing guandan_core._kernels imports guandan_core as well
    _loaded[_name] = importlib.import_module(_name).__file__
for _name in PACKAGES:
    if os.path.isfile(os.path.join(BUILD_DIR, _name, "__init__.py")):
        _loaded.setdefault(_name, importlib.import_module(_name).__file__)
_bad = _foreign_modules()
if _bad:
    raise ImportError("not the CMake build's modules (expected under %s): %s"
                      % (BUILD_DIR, "; ".join(_bad)))


def pytest_report_header(config):
    return [f"guandan build: {name} -> {path}" for name, path in _loaded.items()]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.getoption("verbose") < 0:  # -q hides the header; say it here instead
        for name, path in _loaded.items():
            terminalreporter.write_line(f"guandan build: {name} -> {path}")


def pytest_sessionfinish(session, exitstatus):
    bad = _foreign_modules()
    if bad:
        sys.stderr.write("\npytest_build_guard: modules imported from outside the CMake build "
                         f"({BUILD_DIR}):\n  " + "\n  ".join(bad) + "\n")
        session.exitstatus = 1
