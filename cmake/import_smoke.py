"""ctest `import_smoke`: import the built extension modules and enumerate one hand's moves.

Checks that every compiled module (GUANDAN_BUILD_EXTENSIONS) and the package itself are
loaded from the build's python/ directory (GUANDAN_BUILD_PYTHON_DIR), then lists the legal
lead moves of a 27-card hand with wild cards and checks a few invariants of the result.
"""

from __future__ import annotations

import importlib
import os
import sys

BUILD_DIR = os.path.realpath(os.environ["GUANDAN_BUILD_PYTHON_DIR"])
EXTENSIONS = [m for m in os.environ.get("GUANDAN_BUILD_EXTENSIONS", "").split(",") if m]
HAND = ("S2 H2 H2 C2 H4 C4 D5 S6 H6 C6 D6 H7 D8 D9 D9 ST HT CT DT SJ DJ CQ CQ CK "
        "HA SB HR")  # at level 2 the two H2 are wild cards


def check_location(name: str, path: str | None) -> None:
    if path is None or not os.path.realpath(path).startswith(os.path.join(BUILD_DIR, "")):
        sys.exit(f"import_smoke: {name} was imported from {path}, not from {BUILD_DIR}")
    print(f"{name}: {path}")


def main() -> int:
    for name in EXTENSIONS:
        check_location(name, importlib.import_module(name).__file__)
    import guandan_core
    from guandan_core import Hand, legal_moves

    check_location("guandan_core", guandan_core.__file__)
    moves = list(legal_moves(Hand(HAND), level="2"))
    print(f"{len(moves)} legal lead moves of a {len(HAND.split())}-card hand at level 2")
    if not moves:
        sys.exit("import_smoke: no moves enumerated")
    if len(set(moves)) != len(moves):
        sys.exit("import_smoke: duplicate moves in the enumeration")
    return 0


if __name__ == "__main__":
    sys.exit(main())
