"""What each solver technique buys: nodes to solve the first N endgames of a set with
every technique on, then with each one switched off (node counts are deterministic, so
this is free of machine noise). Run: ``python benchmarks/ablation_solver.py [set] [N]``."""

import json
import sys
import time
from pathlib import Path

from solver import solve
from solver._search import Searcher

SWITCHES = ["use_tt", "use_merge", "use_dominance", "use_bounds", "use_ordering", "use_history",
            "use_compress", "use_plain"]
# off by default because they cost more time than they save here; measured switched on
# (the plain positions' search does not have them: with one on, the general search runs)
EXTRAS = ["use_etc", "use_runout"]
CAP = 4_000_000   # nodes per position; a capped position counts as CAP


def run(items, **off):
    nodes, capped, start = 0, 0, time.perf_counter()
    for obj in items:
        r = solve(obj, searcher=Searcher(20, **off), pv=False, node_limit=CAP)
        nodes += r.nodes
        capped += not r.exact
    return nodes, capped, time.perf_counter() - start


USAGE = "usage: python benchmarks/ablation_solver.py [SET] [N]"


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "endgames_4x6"
    folder = Path(__file__).parent / "data"
    sets = sorted(p.stem for p in folder.glob("endgames_*.json"))
    if name not in sets or len(sys.argv) > 3 or \
            (len(sys.argv) > 2 and not sys.argv[2].isdigit()):
        # (one line, not a traceback: a set named as its shape, 2x10, was a FileNotFoundError)
        sys.exit(f"{USAGE}: SET one of {', '.join(sets)}, N a whole number of positions; "
                 f"not {' '.join(sys.argv[1:])!r}")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    items = json.loads((folder / f"{name}.json").read_text())["items"][:count]
    base, _, secs = run(items)
    print(f"{name}, first {count}: all techniques: {base:,} nodes, {secs:.1f} s")
    for switch in SWITCHES:
        nodes, capped, secs = run(items, **{switch: False})
        note = f" ({capped} hit the {CAP:,}-node cap)" if capped else ""
        print(f"  without {switch[4:]:<9} {nodes:>12,} nodes  x{nodes / base:5.2f}  "
              f"{secs:6.1f} s{note}")
    for switch in EXTRAS:
        nodes, capped, secs = run(items, **{switch: True})
        note = f" ({capped} hit the {CAP:,}-node cap)" if capped else ""
        print(f"  with {switch[4:]:<12} {nodes:>12,} nodes  x{nodes / base:5.2f}  "
              f"{secs:6.1f} s{note}")


if __name__ == "__main__":
    main()
