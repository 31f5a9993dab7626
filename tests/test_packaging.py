"""What an installed package promises: numba only for guandan_core.batch, and clear
messages when a piece is missing (an unbuilt source tree, numba not installed)."""

import re
import shutil
import subprocess
import sys

import pytest

from cli_process import PACKAGES, ROOT, cli_env, run_python


def test_numba_is_an_extra_that_only_the_batch_layer_imports():
    """numba and llvmlite are about 200 MB: a run-time dependency only of the batch layer,
    so the package requires numpy alone and nothing else imports numba."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:                   # (the test extra installs tomli there)
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("numba") for d in project["dependencies"])
    assert any(d.startswith("numba") for d in project["optional-dependencies"]["batch"])
    # every module of both packages but the batch layer, found by walking them (a list
    # written by hand had missed four, and numba imported by one of those passed)
    code = """if True:
        import importlib, pkgutil, sys
        import guandan_core, solver
        names = sorted(m.name for package in (guandan_core, solver)
                       for m in pkgutil.walk_packages(package.__path__, package.__name__ + "."))
        names = [n for n in names if n != "guandan_core.batch"]
        for name in names:
            importlib.import_module(name)
        print(len(names), 'numba' in sys.modules, 'websockets' in sys.modules)
        """
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    count, numba, websockets = done.stdout.split()
    # (the two compiled modules and the 28 Python ones of today, at least)
    assert int(count) >= 30 and (numba, websockets) == ("False", "False")
    # the bot's WebSocket client is an extra too, imported only when it connects
    assert not any(d.startswith("websockets") for d in project["dependencies"])
    assert any(d.startswith("websockets") for d in project["optional-dependencies"]["bot"])


def test_batch_without_numba_says_how_to_get_it():
    done = run_python("import sys; sys.modules['numba'] = None; import guandan_core.batch")
    assert done.returncode == 1
    assert ("guandan_core.batch needs numba: pip install '.[batch]' in the checkout, or pip "
            "install numba") in done.stderr


def test_a_source_tree_without_its_extension_says_so(tmp_path):
    """Python run in a checkout whose extension is not built (or that hides an installed
    copy) failed with "cannot import name '_kernels' from partially initialized module
    ... (most likely due to a circular import)"."""
    shutil.copytree(PACKAGES / "guandan_core", tmp_path / "guandan_core",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    # -S: no site-packages, where an editable install's import hook would find the
    # checkout's built package before the current directory's copy
    done = subprocess.run([sys.executable, "-S", "-c", "import guandan_core"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env=cli_env(drop=("PYTHONSAFEPATH", "PYTHONPATH")))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert "guandan_core's compiled extension (_kernels) is not built in" in last
    assert str(tmp_path / "guandan_core") in last and "build it there" in last
    # the builds it names must work: `python setup.py build_ext --inplace` runs with the
    # environment's own setuptools, which can be older than the 77 pyproject.toml needs
    # (it refused `license = "MIT"` with setuptools 65), while pip fetches its own
    assert "pip install -e ." in last and "DEVELOPING.md" in last
    assert "setup.py" not in last
    assert "circular import" not in done.stderr


def test_the_benchmarks_run():
    """benchmarks/ is not part of the pass/fail of the suite (its figures are measured, not
    asserted), but its code must run: each benchmark once, on 3 positions a set, timing
    off (--benchmark-disable). They had rotted once without a word: a summary read the
    timing statistics, which are None when timing is off."""
    pytest.importorskip("pytest_benchmark")
    benches = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    if not benches:
        pytest.skip("no benchmarks/ beside these tests (a build tree's copy)")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--benchmark-disable", *map(str, benches)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env=cli_env(GUANDAN_BENCH_POSITIONS="3"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1] and "skipped" not in done.stdout


def test_the_ablation_script_names_a_set_it_does_not_have():
    """README (what each technique buys): `python benchmarks/ablation_solver.py SET N`; a
    SET it does not have, or an N that is no number, is one line naming the sets and a
    non-zero status (a set named by its shape, 2x10, was a FileNotFoundError traceback)."""
    script = ROOT / "benchmarks" / "ablation_solver.py"
    if not script.exists():
        pytest.skip("no benchmarks/ beside these tests (a build tree's copy)")
    for args in (["2x10"], ["endgames_2x10", "x"]):
        done = subprocess.run([sys.executable, str(script), *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, env=cli_env())
        assert done.returncode != 0 and done.stdout == ""
        assert done.stderr.splitlines() == [
            "usage: python benchmarks/ablation_solver.py [SET] [N]: SET one of endgames_2x10, "
            f"endgames_4x6, endgames_4x8, N a whole number of positions; not "
            f"{' '.join(args)!r}"]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="the developer build needs CMake")
@pytest.mark.skipif(not (ROOT / "CMakeLists.txt").exists()
                    or not (ROOT / "guandan_core" / "_kernels.pyx").exists(),
                    reason="the developer build needs the source tree (tests run apart from it)")
def test_the_developer_builds_checks_follow_the_build_type(tmp_path):
    """docs/DEVELOPING.md: Cython's checks are on for a Debug build and off otherwise, also
    when one build directory is configured again as another type (a cached ON/OFF default
    kept the first type's: a Release build with bounds checks); ON and OFF still win."""
    def flags(*options):
        proc = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path), *options],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        line, = [x for x in proc.stdout.splitlines() if "cython flags" in x]
        return "boundscheck=True" in line, "boundscheck=False" in line

    on, off = (True, False), (False, True)
    assert flags("-DCMAKE_BUILD_TYPE=Debug") == on
    assert flags("-DCMAKE_BUILD_TYPE=Release") == off
    assert flags("-DCMAKE_BUILD_TYPE=Debug") == on
    assert flags("-DGUANDAN_CYTHON_CHECKS=OFF") == off
    assert flags("-DCMAKE_BUILD_TYPE=Release", "-DGUANDAN_CYTHON_CHECKS=ON") == on
    # ON given with its type stands too (it was taken for an older version's cached
    # default and reset to AUTO), and stays for the next configure
    assert flags("-DCMAKE_BUILD_TYPE=Release", "-DGUANDAN_CYTHON_CHECKS:BOOL=ON") == on
    assert flags() == on
    # a directory configured before, whose cache holds that option()'s ON under the
    # option's help text, follows the build type
    cache = tmp_path / "CMakeCache.txt"
    text, n = re.subn(r"(//[^\n]*\n)?GUANDAN_CYTHON_CHECKS:[A-Z]+=[^\n]*",
                      "//Cython boundscheck/wraparound/initializedcheck on (default: ON for "
                      "Debug, OFF otherwise)\nGUANDAN_CYTHON_CHECKS:BOOL=ON", cache.read_text())
    assert n == 1
    cache.write_text(text)
    assert flags("-DCMAKE_BUILD_TYPE=Release") == off
    assert flags("-DCMAKE_BUILD_TYPE=Debug") == on
    proc = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path),
                           "-DGUANDAN_CYTHON_CHECKS=maybe"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode != 0 and "or AUTO, not 'maybe'" in " ".join(proc.stderr.split())


@pytest.mark.skipif(shutil.which("cmake") is None, reason="the developer build needs CMake")
@pytest.mark.skipif(not (ROOT / "CMakeLists.txt").exists(),
                    reason="the developer build needs the source tree (tests run apart from it)")
def test_the_developer_build_says_its_pytest_arguments_are_kept(tmp_path):
    """docs/DEVELOPING.md: GUANDAN_CTEST_PYTEST_ARGS is kept in the build directory's
    cache, so every configure says it is set (a filter given once for a quick run was
    taken silently for the whole suite later, ctest still saying 100% passed), until
    -DGUANDAN_CTEST_PYTEST_ARGS= clears it."""
    def said(*options):
        proc = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path), *options],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return [x for x in proc.stdout.splitlines() if "GUANDAN_CTEST_PYTEST_ARGS" in x]

    assert said() == []
    message = ["-- guandan_core: the pytest ctest runs with GUANDAN_CTEST_PYTEST_ARGS=-k perft "
               "(-DGUANDAN_CTEST_PYTEST_ARGS= clears it)"]
    assert said("-DGUANDAN_CTEST_PYTEST_ARGS=-k perft") == message
    assert said() == message
    assert said("-DGUANDAN_CTEST_PYTEST_ARGS=") == []


def test_the_cython_stager_removes_what_is_no_longer_a_source(tmp_path):
    """cmake/stage_cython_sources.py: a staged source since deleted or renamed (a .pxd
    above all, which Cython would still find through -I) is removed from the stage, and
    the directories that leaves empty with it; the sources and markers stay."""
    stager = ROOT / "cmake" / "stage_cython_sources.py"
    if not stager.exists():
        pytest.skip("no cmake/ beside these tests (a build tree's copy)")
    src, stage = tmp_path / "src", tmp_path / "stage"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "_m.pyx").write_text("# cython: boundscheck=False\nx = 1\n")
    (src / "pkg" / "__init__.py").write_text("")
    (stage / "pkg" / "gone").mkdir(parents=True)
    (stage / "pkg" / "_old.pxd").write_text("cdef int f()\n")
    (stage / "pkg" / "gone" / "_x.pyx").write_text("")
    done = subprocess.run([sys.executable, str(stager), "--src", str(src), "--dst", str(stage),
                           "--strip=boundscheck", "pkg/_m.pyx", "--markers", "pkg/__init__.py"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert sorted(str(p.relative_to(stage)) for p in stage.rglob("*")) == [
        "pkg", "pkg/__init__.py", "pkg/_m.pyx"]
    assert (stage / "pkg" / "_m.pyx").read_text() == \
        "# (directives removed for the CMake build)\nx = 1\n"
