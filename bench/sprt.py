"""Benchmark of the SPRT's simulations (what ``mjref regress --plan`` and the calibration tests run): CPU seconds of a
fixed set of ``tournaments.sprt.simulate`` calls, each workload in a fresh process (a plan is one: its caches start
cold), and the figures they give.

``--anchor REV`` also runs the same workloads on the whole repository at git revision REV (exported), alternating
with ours, and prints the ratio ours/anchor of each pair (min and max) and whether every figure is identical (the
speed-ups of the SPRT must not change a number).  One JSON line; the load average with it, since the machine may
be shared.

Run from the repository root: ``python bench/sprt.py --anchor 999cddc --repeats 3``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.anchor import commit_of, exported_tree  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
WORKLOADS = ("plan-margin-10", "plan-margin-5", "heavy-tails")

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from tournaments.sprt import SprtSettings, normal_groups, poisson_loss_groups, rare_loss_groups, simulate
which = sys.argv[2]
t0 = time.process_time()
if which.startswith("plan-margin-"):  # mjref regress --plan's simulations: an equal bot and the slowest case
    margin = float(which.removeprefix("plan-margin-"))
    s = SprtSettings(margin=margin, tail=80.0)
    runs = [simulate(s, normal_groups(mean, 9.6), runs=1000, max_groups=1000, max_work=60_000, budget=100)
            for mean in (0.0, -margin / 2, -margin)]
else:  # the heavy-tailed calibration models at margin 5 (tests/tournaments/test_sprt.py)
    runs = [simulate(SprtSettings(margin=5.0, tail=130.0), rare_loss_groups(m, 9.6, 0.1, 100.0), runs=100, seed=11)
            for m in (-5.0, 0.0)]
    runs += [simulate(SprtSettings(margin=5.0, tail=80.0), poisson_loss_groups(m, 9.6, 40.0, 0.125), runs=200,
                      seed=12) for m in (-5.0, 0.0)]
cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "figures": [repr(r) for r in runs]}))
"""


def run(root: Path, which: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), which], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", metavar="REV", help="also run the workloads at git revision REV, alternating")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per workload (default 3)")
    args = parser.parse_args(argv)
    result: dict[str, object] = {"bench": "sprt", "load_before": os.getloadavg()[0]}
    tree = exported_tree(args.anchor, "bench/sprt.py") if args.anchor else contextlib.nullcontext(None)
    with tree as anchor_root:
        for which in WORKLOADS:
            ours: list[float] = []
            theirs: list[float] = []
            same = True
            for _ in range(args.repeats):
                mine = run(REPO, which)
                ours.append(float(mine["cpu"]))  # type: ignore[arg-type]
                if anchor_root is not None:
                    other = run(anchor_root, which)
                    theirs.append(float(other["cpu"]))  # type: ignore[arg-type]
                    same = same and mine["figures"] == other["figures"]
            row: dict[str, object] = {"cpu_s": round(min(ours), 3)}
            if anchor_root is not None:
                ratios = [a / b for a, b in zip(ours, theirs)]
                row |= {"anchor_cpu_s": round(min(theirs), 3), "ratio_min": round(min(ratios), 3),
                        "ratio_max": round(max(ratios), 3), "identical_figures": same}
            result[which] = row
    if args.anchor:
        result["anchor"] = commit_of(args.anchor)
    result["load_after"] = os.getloadavg()[0]
    result["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
