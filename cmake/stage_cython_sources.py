"""Copy Cython sources into the CMake build tree, optionally dropping header directives.

Cython gives a module's `# cython: key=value, ...` header comments precedence over `-X` on
the command line, so a Debug build that wants `-X boundscheck=True` first removes
`boundscheck` from the header of a staged copy. Only the directive comment lines of the
leading comment block are rewritten, and each stays one line, so line numbers (tracebacks,
the source comments in the generated C) match the original file.

Usage (see CMakeLists.txt):
    stage_cython_sources.py --src ROOT --dst STAGE [--strip=a,b,c] FILE... [--markers INIT...]

FILE and INIT are paths relative to ROOT. A FILE is written to STAGE only when its staged
content changes. For each INIT (a package's __init__.py) an empty marker file is written,
which is all Cython needs to recognise the package. Any other file in STAGE (a source since
deleted or renamed) is removed, so that Cython cannot find a .pxd that is no longer there.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

DIRECTIVE_LINE = re.compile(r"^(\s*#\s*cython\s*:)(.*)$")


def strip_header_directives(text: str, strip: set[str]) -> str:
    if not strip:
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        stripped = body.strip()
        if stripped and not stripped.startswith("#"):
            break  # Cython reads directive comments only before the first code line
        m = DIRECTIVE_LINE.match(body)
        if not m:
            continue
        kept = []
        for item in m.group(2).split(","):
            key = item.split("=", 1)[0].strip()
            if key and key not in strip:
                kept.append(item.strip())
        if kept:
            lines[i] = f"{m.group(1)} {', '.join(kept)}{ending}"
        else:
            lines[i] = f"# (directives removed for the CMake build){ending}"
    return "".join(lines)


def write_if_changed(path: str, text: str) -> None:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--strip", default="", help="comma-separated directive names")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--markers", nargs="*", default=[])
    args = ap.parse_args(argv)
    strip = {s.strip() for s in args.strip.split(",") if s.strip()}

    for rel in args.files:
        with open(os.path.join(args.src, rel), encoding="utf-8", newline="") as f:
            text = f.read()
        if rel.endswith((".pyx", ".pxd", ".pxi")):
            text = strip_header_directives(text, strip)
        write_if_changed(os.path.join(args.dst, rel), text)
    for rel in args.markers:
        write_if_changed(os.path.join(args.dst, rel), "")
    remove_others(args.dst, {os.path.normpath(rel) for rel in args.files + args.markers})
    return 0


def remove_others(stage: str, kept: set[str]) -> None:
    """Remove the files of ``stage`` not in ``kept`` (paths relative to it), and the
    directories that leaves empty."""
    for top, dirs, files in os.walk(stage, topdown=False):
        for name in files:
            path = os.path.join(top, name)
            if os.path.relpath(path, stage) not in kept:
                os.remove(path)
        if top != stage and not os.listdir(top):
            os.rmdir(top)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
