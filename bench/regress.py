"""Benchmark of duplicate seating for ``mjref regress``: how much luck it removes, and what that saves in hands.

Two built-in bots (default: ``greedy:chowness=0.9`` as the candidate against ``greedy``) play G seeds.  For each
seed the candidate sits in each of the four seats against three baselines (4 matches) and four baselines play the
same walls (1 match: the reference table).  From the same games two kinds of groups are formed:

* **duplicate** (what ``mjref regress --design 1v3`` does): on one seed, the mean over the four seats of the
  candidate's points minus the baseline's points in that seat on those walls, per hand;
* **plain**: the same, but every match on its own walls: the candidate's seat-r match comes from seed g + r and
  the baseline's seat-r points from the reference table of seed g + r + G/2, so nothing is paired.

Printed as ONE JSON line: the spread (SD) of both kinds of group differences, the variance reduction factor, and
the hands a verdict takes in each case, from the SPRT's expected sample size (``tournaments.sprt``, Brownian
approximation, at least the burn-in of 8 groups; the raw figures are in ``expected_groups_*``) at the default
margin, for an unchanged bot (mean 0) and for the slowest case
(a mean halfway between the hypotheses).  A duplicate group costs 4 matches (its reference table is zero-sum and is
not played by ``mjref regress``), a plain group 8 (4 for the candidate, 4 for the baseline on other walls).

Run from the repository root: ``python bench/regress.py [--groups 40] [--hands 16] [--workers N]``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import machine  # noqa: E402
from referee.game.rules import make_ruleset
from tournaments.regress import RegressSettings
from tournaments.runner import MatchJob, run_job
from tournaments.schedule import ScheduledMatch
from tournaments.sprt import SprtSettings, expected_groups
from wrappers.spec import BotSpec


def hands_needed(mean: float, sd: float, sprt: SprtSettings, hands_per_group: int) -> int:
    groups = max(float(sprt.min_groups), expected_groups(mean, sd, sprt))
    return math.ceil(groups) * hands_per_group


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--candidate", default="greedy:chowness=0.9")
    ap.add_argument("--baseline", default="greedy")
    ap.add_argument("--groups", type=int, default=40)
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--save-groups", type=Path, default=None, metavar="FILE",
                    help="also write the duplicate groups' differences to FILE (JSON), e.g. tests/data/")
    args = ap.parse_args()
    cand = BotSpec(name=args.candidate, builtin=args.candidate)
    base = BotSpec(name=args.baseline, builtin=args.baseline)
    settings = RegressSettings(cand, base, rules=make_ruleset({"hands": args.hands}))
    rules = settings.rules.model_dump()
    specs = {"candidate": cand, "baseline": base}
    jobs = []
    for k in range(args.groups):
        for m in settings.group(k):
            jobs.append(MatchJob(m, tuple(specs[r] for r in m.seats), rules, None, None, m.seed))  # type: ignore[arg-type]
        seed = settings.seed(k)
        ref = ScheduledMatch(f"s{seed}-ref", 0, f"s{seed}", seed, 0, ("baseline",) * 4)  # type: ignore[arg-type]
        jobs.append(MatchJob(ref, (base,) * 4, rules, None, None, ref.seed))
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        records = {r.id: r for r in pool.map(run_job, jobs, chunksize=2)}
    seconds = time.perf_counter() - started

    g_count, h = args.groups, args.hands
    cand_pts = [[records[f"s{settings.seed(k)}-c{r}"].totals[r] for r in range(4)] for k in range(g_count)]
    ref_pts = [list(records[f"s{settings.seed(k)}-ref"].totals) for k in range(g_count)]
    duplicate = [sum(cand_pts[k][r] - ref_pts[k][r] for r in range(4)) / (4 * h) for k in range(g_count)]
    half = g_count // 2
    plain = [sum(cand_pts[(k + r) % g_count][r] - ref_pts[(k + r + half) % g_count][r] for r in range(4)) / (4 * h)
             for k in range(g_count)]
    hand_scores = [abs(row[f"s{rec.rotation + 1}"])  # the candidate's seat in match c<r> is r + 1
                   for rec in records.values() if "-c" in rec.id for row in rec.hand_rows]

    sprt = settings.sprt
    sd_dup, sd_plain = statistics.stdev(duplicate), statistics.stdev(plain)
    out = {
        "bench": "regress",
        "candidate": args.candidate,
        "baseline": args.baseline,
        "groups": g_count,
        "hands_per_match": h,
        "mean_diff": round(statistics.fmean(duplicate), 3),
        "sd_duplicate": round(sd_dup, 3),
        "sd_plain": round(sd_plain, 3),
        "variance_reduction": round((sd_plain / sd_dup) ** 2, 2),
        "margin": sprt.margin,
        "hands_per_group_duplicate": 4 * h,
        "hands_per_group_plain": 8 * h,
        "hands_for_verdict_duplicate": {
            "equal": hands_needed(0.0, sd_dup, sprt, 4 * h),
            "worst": hands_needed(-sprt.margin / 2, sd_dup, sprt, 4 * h),
        },
        "expected_groups_duplicate": {
            "equal": round(expected_groups(0.0, sd_dup, sprt), 1),
            "worst": round(expected_groups(-sprt.margin / 2, sd_dup, sprt), 1),
        },
        "expected_groups_plain": {
            "equal": round(expected_groups(0.0, sd_plain, sprt), 1),
            "worst": round(expected_groups(-sprt.margin / 2, sd_plain, sprt), 1),
        },
        "hands_for_verdict_plain": {
            "equal": hands_needed(0.0, sd_plain, sprt, 8 * h),
            "worst": hands_needed(-sprt.margin / 2, sd_plain, sprt, 8 * h),
        },
        "candidate_mean_abs_points_per_hand": round(statistics.fmean(hand_scores), 1),
        "matches": len(jobs),
        "seconds": round(seconds, 1),
        "workers": args.workers,
        "machine": machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    if args.save_groups is not None:
        args.save_groups.write_text(json.dumps({
            "candidate": args.candidate, "baseline": args.baseline, "hands_per_match": h, "design": "1v3",
            "differences": [round(d, 6) for d in duplicate]}) + "\n")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
