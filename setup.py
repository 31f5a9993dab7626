"""pip build of the Cython extensions (metadata lives in pyproject.toml)."""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup

# GUANDAN_DEBUG=1 builds without optimisation and with Cython's bounds checks, for
# debugging (the .pyx headers leave these directives to the build on purpose).
debug = os.environ.get("GUANDAN_DEBUG") == "1"
compile_args = ["-O0", "-g"] if debug else ["-O3"]
directives = {"language_level": 3, "boundscheck": debug, "wraparound": debug,
              "initializedcheck": debug}

extensions = [
    Extension(
        "guandan_core._kernels",
        ["guandan_core/_kernels.pyx"],
        extra_compile_args=compile_args,
    ),
    # the solver's search cimports the kernels through guandan_core/_kernels.pxd
    Extension(
        "solver._search",
        ["solver/_search.pyx"],
        extra_compile_args=compile_args,
    ),
]


# cythonize compares file times only, so switching GUANDAN_DEBUG kept the other mode's C
# code (bounds checks in a release build): the mode the C sources were made in is
# recorded, and a different one regenerates them
MODE = "debug" if debug else "release"
STAMP = os.path.join("build", "cython-mode")


def _recorded_mode():
    try:
        with open(STAMP) as f:
            return f.read()
    except OSError:
        return None


modules = cythonize(extensions, compiler_directives=directives, include_path=["."],
                    force=_recorded_mode() != MODE)
os.makedirs("build", exist_ok=True)
with open(STAMP, "w") as f:
    f.write(MODE)

setup(
    ext_modules=modules,
    package_data={"guandan_core": ["*.pxd", "*.pyx"], "solver": ["*.pyx"]},
)
