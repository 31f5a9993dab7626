"""What an installed package promises: numba only for guandan_core.batch, and clear
messages when a piece is missing (an unbuilt source tree, numba not installed)."""

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
    # a directory configured before, whose cache holds that option()'s ON, follows too
    assert flags("-DCMAKE_BUILD_TYPE=Release", "-DGUANDAN_CYTHON_CHECKS:BOOL=ON") == off
    assert flags("-DCMAKE_BUILD_TYPE=Debug") == on
    proc = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path),
                           "-DGUANDAN_CYTHON_CHECKS=maybe"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode != 0 and "or AUTO, not 'maybe'" in " ".join(proc.stderr.split())
