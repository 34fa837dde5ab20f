"""Benchmark of the clustered 95 % intervals of standings (``tournaments.stats.cluster_ratio``): how often they
cover the true mean, by number of groups and shape of the groups' results.

Each simulated tournament has G groups (5, 10, 20, 50); a group's result is ``(y, n)``: n hands, y points.  Shapes
(the true mean is 0 in each):

* ``normal``: n = 16, y normal;
* ``skewed``: n = 16, y exponential minus its mean (skew 2: many small losses, rare big wins);
* ``very skewed``: n = 16, y lognormal (log-SD 1) minus its mean (skew 6.2);
* ``heavy-tailed``: n = 16, y Student's t with 3 degrees of freedom (symmetric, infinite kurtosis);
* ``unequal sizes``: n uniform from 1 to 20 hands, y the sum of n normal hands;
* ``unequal, skewed``: n uniform from 1 to 20, y the sum of n exponential hands minus their mean.

For each cell: the coverage of every interval, the share the table marks with a caveat (``Estimate.caveat``: "95 %
if not skewed" below 10 groups, "too few groups for a skewed result" when the groups are significantly skewed and
too few for their skewness), and the coverage of the intervals shown without one, each with a 95 % Clopper-Pearson
interval.  Prints one JSON object; ``--markdown`` prints the table of docs/statistics.md.

Run from the repository root: ``python bench/coverage.py [--reps 10000]``.  Seeded: the same figures every run.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import machine  # noqa: E402
from tournaments.stats import CAVEATS, clopper_pearson, cluster_ratio  # noqa: E402

Group = Callable[[random.Random], tuple[float, float]]


def _t3(rng: random.Random) -> float:
    chi2 = sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3))
    return rng.gauss(0.0, 1.0) / math.sqrt(chi2 / 3)


SHAPES: dict[str, Group] = {
    "normal": lambda rng: (rng.gauss(0.0, 1.0), 16.0),
    "skewed": lambda rng: (rng.expovariate(1.0) - 1.0, 16.0),
    "very skewed": lambda rng: (rng.lognormvariate(0.0, 1.0) - math.exp(0.5), 16.0),
    "heavy-tailed": lambda rng: (_t3(rng), 16.0),
    "unequal sizes": lambda rng: (lambda n: (rng.gauss(0.0, math.sqrt(n)), n))(float(rng.randint(1, 20))),
    "unequal, skewed": lambda rng: (lambda n: (rng.gammavariate(n, 1.0) - n, n))(float(rng.randint(1, 20))),
}
GROUPS = (5, 10, 20, 50)


def cell(shape: str, groups: int, reps: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    draw = SHAPES[shape]
    covered = marked = covered_unmarked = 0
    for _ in range(reps):
        e = cluster_ratio([draw(rng) for _ in range(groups)])
        assert e.lo is not None and e.hi is not None
        hit = e.lo <= 0.0 <= e.hi
        covered += hit
        if e.caveat:
            marked += 1
        else:
            covered_unmarked += hit
    unmarked = reps - marked
    return {
        "shape": shape, "groups": groups, "reps": reps,
        "coverage": round(covered / reps, 4), "coverage_ci95": [round(p, 4) for p in clopper_pearson(covered, reps)],
        "marked": round(marked / reps, 4),
        "coverage_unmarked": round(covered_unmarked / unmarked, 4) if unmarked else None,
        "coverage_unmarked_ci95": [round(p, 4) for p in clopper_pearson(covered_unmarked, unmarked)]
        if unmarked else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=10_000, help="simulated tournaments per cell (default 10000)")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table instead of JSON")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be 1 or more")
    started = time.perf_counter()
    rows = [cell(shape, g, args.reps, seed=1000 * i + g) for i, shape in enumerate(SHAPES) for g in GROUPS]
    seconds = round(time.perf_counter() - started, 1)
    if args.markdown:
        print("| groups | shape | coverage (95 % CI) | marked with a caveat | coverage of the unmarked |")
        print("|---|---|---|---|---|")
        for r in sorted(rows, key=lambda r: (r["groups"], list(SHAPES).index(r["shape"]))):
            lo, hi = r["coverage_ci95"]
            un = "—" if r["coverage_unmarked"] is None else f"{100 * r['coverage_unmarked']:.1f} %"
            print(f"| {r['groups']} | {r['shape']} | {100 * r['coverage']:.1f} % ({100 * lo:.1f}–{100 * hi:.1f}) "
                  f"| {100 * r['marked']:.0f} % | {un} |")
        print(f"\n{seconds} s, {args.reps} tournaments per cell; caveats: {'; '.join(CAVEATS.values())}")
        return
    print(json.dumps({"bench": "coverage", "level": 0.95, "rows": rows, "seconds": seconds, "machine": machine(),
                      "python": platform.python_version()}, ensure_ascii=False))


if __name__ == "__main__":
    main()
