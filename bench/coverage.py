"""Benchmark of the clustered 95 % intervals of standings (``tournaments.stats.cluster_ratio``): how often they
cover the true mean, by number of groups and shape of the groups' results.

Each simulated tournament has G groups (5, 10, 20, 50); a group's result is ``(y, n)``: n hands, y points.  Shapes
(the true mean is 0 in each):

* ``normal``: n = 16, y normal;
* ``skewed``: n = 16, y exponential minus its mean (skew 2: many small losses, rare big wins);
* ``very skewed``: n = 16, y lognormal (log-SD 1) minus its mean (skew 6.2);
* ``heavy-tailed``: n = 16, y Student's t with 3 degrees of freedom (symmetric, infinite kurtosis);
* ``unequal sizes``: n uniform from 1 to 20 hands, y the sum of n normal hands;
* ``unequal, skewed``: n uniform from 1 to 20, y the sum of n exponential hands minus their mean;
* ``rare big wins``: n = 16, y normal, plus 20 in 5 % of the groups (skew 3.8), minus the mean: a result no
  interval can promise until its rare groups are drawn (at 10 groups, 60 % of tournaments draw none).

For each cell: the coverage of every interval, the share the table marks with a caveat (``Estimate.caveat``: "95 %
if not skewed" below 10 groups, "95 % if not very skewed" below 50), the coverage of the intervals shown without
one, each with a 95 % Clopper-Pearson interval; the coverage of the t interval alone (without the skewness
correction); and how often the groups' sample skewness is below 1 and the coverage then (the intervals that miss a
skewed result are those whose groups look no more skewed than normal ones: no rule on the groups can mark them).
``--bootstrap B`` also measures a clustered bootstrap-t (B resamples of the groups, the same ratio and standard
error in each, equal-tailed): slow in pure Python, so with ``--reps 2000``.  Prints one JSON object;
``--markdown`` prints the table of docs/statistics.md.

Run from the repository root: ``python bench/coverage.py [--reps 10000] [--bootstrap 999]``.  Seeded: the same
figures every run.
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
from tournaments.stats import CAVEATS, clopper_pearson, cluster_ratio, interval_caveat, t_quantile  # noqa: E402

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
    "rare big wins": lambda rng: (rng.gauss(0.0, 1.0) + (20.0 if rng.random() < 0.05 else 0.0) - 1.0, 16.0),
}
GROUPS = (5, 10, 20, 50)
LOW_SKEW = 1.0
"""The sample skewness below which a cell counts the groups as looking unskewed (normal groups' is below it in
87-98 % of tournaments of 10-50 groups)."""


def _ratio_se(ys: list[float], ns: list[float]) -> tuple[float, float]:
    """The ratio and its standard error, as ``cluster_ratio`` computes them (CR1 with the effective groups)."""
    sy, sn, snn = math.fsum(ys), math.fsum(ns), math.fsum(n * n for n in ns)
    r = sy / sn
    ss = math.fsum((y - r * n) ** 2 for y, n in zip(ys, ns))
    effective = max(min(float(len(ys)), sn * sn / snn), 1.0 + 1e-9)
    return r, math.sqrt(effective / (effective - 1) * ss) / sn


def bootstrap_t(ys: list[float], ns: list[float], resamples: int, rng: random.Random) -> tuple[float, float]:
    """The clustered bootstrap-t interval: the groups resampled with replacement, the studentized ratio of each
    resample, its 2.5 % and 97.5 % quantiles (resamples with no spread left out)."""
    g = len(ys)
    r, se = _ratio_se(ys, ns)
    ts = []
    for _ in range(resamples):
        idx = rng.choices(range(g), k=g)
        br, bse = _ratio_se([ys[i] for i in idx], [ns[i] for i in idx])
        if bse > 0:
            ts.append((br - r) / bse)
    ts.sort()
    lo_q, hi_q = ts[int(0.025 * (len(ts) - 1))], ts[math.ceil(0.975 * (len(ts) - 1))]
    return r - hi_q * se, r - lo_q * se


def _share(k: int, n: int) -> dict[str, Any]:
    return {"rate": round(k / n, 4) if n else None,
            "ci95": [round(p, 4) for p in clopper_pearson(k, n)] if n else None}


def cell(shape: str, groups: int, reps: int, seed: int, resamples: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    boot_rng = random.Random(seed + 1)
    draw = SHAPES[shape]
    t = t_quantile(0.975, groups - 1)
    covered = marked = covered_unmarked = covered_t = low = covered_low = covered_boot = 0
    for _ in range(reps):
        data = [draw(rng) for _ in range(groups)]
        e = cluster_ratio(data)
        assert e.lo is not None and e.hi is not None and e.value is not None and e.se is not None
        hit = e.lo <= 0.0 <= e.hi
        covered += hit
        covered_t += abs(e.value) <= t * e.se
        if e.skew is None or e.skew < LOW_SKEW:
            low += 1
            covered_low += hit
        if e.caveat:
            marked += 1
        else:
            covered_unmarked += hit
        if resamples:
            lo, hi = bootstrap_t([y for y, _ in data], [n for _, n in data], resamples, boot_rng)
            covered_boot += lo <= 0.0 <= hi
    unmarked = reps - marked
    return {
        "shape": shape, "groups": groups, "reps": reps, "caveat": CAVEATS.get(interval_caveat(groups) or ""),
        "coverage": round(covered / reps, 4), "coverage_ci95": [round(p, 4) for p in clopper_pearson(covered, reps)],
        "marked": round(marked / reps, 4),
        "coverage_unmarked": _share(covered_unmarked, unmarked),
        "coverage_t_alone": round(covered_t / reps, 4),
        "low_skew_share": round(low / reps, 4), "coverage_low_skew": _share(covered_low, low),
        "bootstrap_t": {"resamples": resamples, **_share(covered_boot, reps)} if resamples else None,
    }


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f} %"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=10_000, help="simulated tournaments per cell (default 10000)")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="B",
                    help="also a clustered bootstrap-t with B resamples (slow: use --reps 2000)")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table instead of JSON")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be 1 or more")
    if args.bootstrap and args.bootstrap < 99:
        ap.error("--bootstrap must be 99 or more resamples (or 0: none)")
    started = time.perf_counter()
    rows = [cell(shape, g, args.reps, seed=1000 * i + g, resamples=args.bootstrap)
            for i, shape in enumerate(SHAPES) for g in GROUPS]
    seconds = round(time.perf_counter() - started, 1)
    if args.markdown:
        boot = " bootstrap-t |" if args.bootstrap else ""
        print("| groups | shape | coverage (95 % CI) | caveat in the table | coverage of the unmarked | t alone |"
              f"{boot} sample skew < 1: share, coverage |")
        print("|---|---|---|---|---|---|---|" + ("---|" if args.bootstrap else ""))
        for r in sorted(rows, key=lambda r: (r["groups"], list(SHAPES).index(r["shape"]))):
            lo, hi = r["coverage_ci95"]
            b = f" {_pct(r['bootstrap_t']['rate'])} |" if args.bootstrap else ""
            print(f"| {r['groups']} | {r['shape']} | {100 * r['coverage']:.1f} % ({100 * lo:.1f}–{100 * hi:.1f}) "
                  f"| {r['caveat'] or '—'} | {_pct(r['coverage_unmarked']['rate'])} | {_pct(r['coverage_t_alone'])} "
                  f"|{b} {100 * r['low_skew_share']:.0f} %, {_pct(r['coverage_low_skew']['rate'])} |")
        print(f"\n{seconds} s, {args.reps} tournaments per cell"
              + (f", bootstrap-t with {args.bootstrap} resamples" if args.bootstrap else ""))
        return
    print(json.dumps({"bench": "coverage", "level": 0.95, "rows": rows, "seconds": seconds, "machine": machine(),
                      "python": platform.python_version()}, ensure_ascii=False))


if __name__ == "__main__":
    main()
