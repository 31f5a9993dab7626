"""Mirror Python packages from the source tree into the CMake build's python/ directory.

Usage (see CMakeLists.txt):
    sync_python_tree.py --src ROOT --dst BUILD/python PACKAGE...

Every file of each PACKAGE directory (recursively) is copied when its content differs,
except byte code, compiled extension modules (the build puts its own there) and C/C++/HTML
files generated from a .pyx next to them (an in-place setuptools build leaves those behind).
Files in the destination whose source has gone are removed; extension modules and
__pycache__ directories in the destination are left alone. The source tree is only read.
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.machinery
import os
import shutil
import sys

EXT_SUFFIXES = tuple(sorted(set(importlib.machinery.EXTENSION_SUFFIXES) | {".so", ".pyd"}))
SKIP_DIRS = {"__pycache__"}
SKIP_SUFFIXES = (".pyc", ".pyo", ".tmp") + EXT_SUFFIXES


def is_cython_output(dirpath: str, name: str) -> bool:
    stem, ext = os.path.splitext(name)
    return ext in (".c", ".cpp", ".html") and os.path.exists(os.path.join(dirpath, stem + ".pyx"))


def wanted(dirpath: str, name: str) -> bool:
    return not (name.endswith(SKIP_SUFFIXES) or name.startswith(".")
                or is_cython_output(dirpath, name))


def sync_package(src_root: str, dst_root: str, package: str) -> int:
    src_pkg = os.path.join(src_root, package)
    dst_pkg = os.path.join(dst_root, package)
    seen: set[str] = set()
    copied = 0
    if os.path.isdir(src_pkg):
        for dirpath, dirnames, filenames in os.walk(src_pkg):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
            rel_dir = os.path.relpath(dirpath, src_pkg)
            for name in sorted(filenames):
                if not wanted(dirpath, name):
                    continue
                rel = os.path.normpath(os.path.join(rel_dir, name))
                seen.add(rel)
                src = os.path.join(dirpath, name)
                dst = os.path.join(dst_pkg, rel)
                if os.path.isfile(dst) and filecmp.cmp(src, dst, shallow=False):
                    continue
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
                copied += 1
    if os.path.isdir(dst_pkg):  # drop files whose source is gone
        for dirpath, dirnames, filenames in os.walk(dst_pkg):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            rel_dir = os.path.relpath(dirpath, dst_pkg)
            for name in filenames:
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if rel not in seen and not name.endswith(EXT_SUFFIXES):
                    os.remove(os.path.join(dirpath, name))
    return copied


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("packages", nargs="+")
    args = ap.parse_args(argv)
    src_root = os.path.realpath(args.src)
    dst_root = os.path.realpath(args.dst)
    pkg_dirs = [os.path.join(src_root, p) for p in args.packages]
    if dst_root == src_root or any(dst_root == d or dst_root.startswith(os.path.join(d, ""))
                                   for d in pkg_dirs):
        print(f"sync_python_tree: refusing to sync into the source packages ({dst_root})",
              file=sys.stderr)
        return 2
    os.makedirs(dst_root, exist_ok=True)
    for package in args.packages:
        n = sync_package(src_root, dst_root, package)
        if n:
            print(f"sync_python_tree: {package}: {n} file(s) updated in {dst_root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
