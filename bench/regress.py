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

``--tables`` plays nothing: it simulates the test itself (``tournaments.sprt.simulate``: burn-in, small-sample
factor, the two bounded betting tests that give a pass and a regression, overshoot) on 1v3 groups of 16-hand
matches, at margins 10 and 5, under a light model (normal, SD 9.6 as measured), the real differences
(``tests/data/regress_groups.json``, resampled), the heavy-tailed models (Poisson losses of 2,560 points in a
seat-hand, with the default bound, one swing as the bound, and no bound; 10 %/5 % of groups losing 100/200 points
per hand, with a bound above that loss) and the right-skewed equal bots of issue 34 (``20·(Exp−1)``,
``40·(Exp−1)`` at the default bound and at one that covers it, a −12/+48 80/20 mixture, lognormal wins at the
default bound and at 240 per hand, 5 % of groups winning 2,000-5,000 points; ``20·(Exp−1)`` also with no bound).
It prints the false-pass and false-regression rates with 95 % Clopper-Pearson intervals, the share of each model's
groups beyond the bound, how many of the wrong verdicts said in their sentence that their rate is not proved for the
run (a group beyond the bound on their side came first: ``false_pass_said``, ``false_regression_said``, shares of
all runs), and the hands a run takes (mean, and the 95th percentile), one JSON object (each row also on stderr as it
is done);
``--markdown`` prints the table of docs/regression.md.  2,000 runs per cell by default, on ``--workers``
processes; run it with ``nice``: it takes minutes of CPU (about 2.5 on this machine, 11 min of wall time at a load
average of 12 on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import machine  # noqa: E402
from referee.game.taiwan16.rules import make_ruleset
from tournaments.regress import DEFAULT_TAIL_LOSS, RegressSettings, resampled_groups
from tournaments.runner import MatchJob, run_job
from tournaments.schedule import ScheduledMatch
from tournaments.sprt import (
    SprtError,
    SprtSettings,
    expected_groups,
    exponential_groups,
    jackpot_groups,
    lognormal_groups,
    normal_groups,
    poisson_loss_groups,
    rare_loss_groups,
    simulate,
    two_point_groups,
)
from tournaments.stats import clopper_pearson
from wrappers.spec import BotSpec


def hands_needed(mean: float, sd: float, sprt: SprtSettings, hands_per_group: int) -> int:
    """Hands to a verdict: the mean of simulated runs of the real test (burn-in, inflation, overshoot)."""
    return math.ceil(simulate(sprt, normal_groups(mean, sd), runs=1000).mean_groups) * hands_per_group


Model = Callable[[float], Callable[[random.Random], float]]


def table_models(margin: float) -> list[tuple[str, float, Model]]:
    """The rows of ``--tables`` at one margin: (name, the bound in points per hand of a group, the model at a given
    true mean).  1v3 groups of 16-hand matches: 64 candidate seat-hands, SD 9.6 as measured.  Light, real, heavy
    losses (the audit's), and right-skewed equal bots (issue 34: many small losses, rare big wins)."""
    seat_hands, sd, swing = 64, 9.6, 2560.0
    data = Path(__file__).resolve().parent.parent / "tests" / "data" / "regress_groups.json"
    diffs = json.loads(data.read_text())["differences"]
    default = DEFAULT_TAIL_LOSS / seat_hands
    w = swing / seat_hands

    def poisson(mean: float) -> Callable[[random.Random], float]:
        return poisson_loss_groups(mean, sd, w, margin / w)  # events often enough to cost the margin

    return [
        ("light (normal, SD 9.6)", default, lambda mean: normal_groups(mean, sd)),
        ("real differences, resampled", default, lambda mean: resampled_groups(diffs, mean)),
        ("Poisson losses of 2,560 in a seat-hand", default, poisson),
        ("same, bound 2,560 (one swing: too small)", w, poisson),
        ("same, no bound (--tail-loss 0: the LLR decides)", 0.0, poisson),
        ("10% of groups lose 100/hand, bound 130/hand", 130.0,
         lambda mean: rare_loss_groups(mean, sd, 0.1, 100.0)),
        ("5% of groups lose 200/hand, bound 240/hand", 240.0,
         lambda mean: rare_loss_groups(mean, sd, 0.05, 200.0)),
        ("20·(Exp−1)", default, lambda mean: exponential_groups(mean, 20.0)),
        ("40·(Exp−1) (5 % of groups beyond the bound)", default, lambda mean: exponential_groups(mean, 40.0)),
        ("40·(Exp−1), bound 200/hand", 200.0, lambda mean: exponential_groups(mean, 40.0)),
        ("−12/+48, 80/20 mixture", default, lambda mean: two_point_groups(mean, -12.0, 48.0, 0.2)),
        ("lognormal wins, 10·LN(0, 1)", default, lambda mean: lognormal_groups(mean, 10.0, 1.0)),
        ("lognormal wins, bound 240/hand", 240.0, lambda mean: lognormal_groups(mean, 10.0, 1.0)),
        ("5 % of groups win 2,000–5,000", default,
         lambda mean: jackpot_groups(mean, sd, 0.05, 2000 / seat_hands, 5000 / seat_hands)),
        ("20·(Exp−1), no bound (--tail-loss 0)", 0.0, lambda mean: exponential_groups(mean, 20.0)),
        ("light, bound 2,560", w, lambda mean: normal_groups(mean, sd)),
        ("light, no bound (--tail-loss 0)", 0.0, lambda mean: normal_groups(mean, sd)),
    ]


def beyond(model: Callable[[random.Random], float], bound: float, draws: int = 100_000) -> float | None:
    """The share of a model's groups beyond ``±bound`` (outside what the guarantees cover); None without one."""
    if bound <= 0:
        return None
    rng = random.Random(99)
    return sum(abs(model(rng)) > bound for _ in range(draws)) / draws


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _row(job: tuple[float, str, float, int]) -> dict[str, Any]:
    """One row of ``--tables``: the model at −margin (false pass) and at 0 (false regression)."""
    margin, name, bound, runs = job
    model = dict((n, m) for n, _, m in table_models(margin))[name]
    seat_hands = 64
    settings = SprtSettings(margin=margin, tail=bound)
    at_h0 = simulate(settings, model(-margin), runs=runs, seed=1)
    at_h1 = simulate(settings, model(0.0), runs=runs, seed=2)
    fp, fr = round(at_h0.passed * runs), round(at_h1.failed * runs)
    share = beyond(model(0.0), bound)
    return {
        "margin": margin, "model": name, "tail_loss": round(bound * seat_hands), "runs": runs,
        "beyond_bound": None if share is None else round(share, 5),
        "false_pass": round(at_h0.passed, 4), "false_pass_ci95": [round(p, 4) for p in clopper_pearson(fp, runs)],
        "false_regression": round(at_h1.failed, 4),
        "false_regression_ci95": [round(p, 4) for p in clopper_pearson(fr, runs)],
        # the wrong verdicts that said "not proved for this run" (a group beyond the bound on their side first)
        "false_pass_said": round(at_h0.passed_beyond, 4), "false_regression_said": round(at_h1.failed_beyond, 4),
        "hands_equal_mean": round(at_h1.mean_groups * seat_hands),
        "hands_equal_p95": at_h1.p95_groups * seat_hands if at_h1.p95_groups else None,
        "hands_regression_mean": round(at_h0.mean_groups * seat_hands),
    }


def tables(runs: int, markdown: bool, margins: tuple[float, ...], workers: int) -> None:
    started = time.perf_counter()
    jobs = [(margin, name, bound, runs) for margin in margins for name, bound, _ in table_models(margin)]
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for row in pool.map(_row, jobs):
            rows.append(row)
            print(json.dumps(row, ensure_ascii=False), file=sys.stderr, flush=True)  # progress
    seconds = round(time.perf_counter() - started, 1)
    if markdown:
        print("| margin | model | --tail-loss | groups beyond it | false pass (95 % CI) | false regression (95 % CI) "
              "| of which said 'not proved' (pass / regression) "
              "| hands, equal bot (mean / 95 %) | hands, regression of the margin (mean) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            fp, fr = r["false_pass_ci95"], r["false_regression_ci95"]
            out = "—" if r["beyond_bound"] is None else f"{100 * r['beyond_bound']:.2f} %"
            said = "—" if r["beyond_bound"] is None else (f"{_pct(r['false_pass_said'])} % / "
                                                          f"{_pct(r['false_regression_said'])} %")
            print(f"| {r['margin']:g} | {r['model']} | {r['tail_loss']} | {out} "
                  f"| {_pct(r['false_pass'])} % ({_pct(fp[0])}–{_pct(fp[1])}) "
                  f"| {_pct(r['false_regression'])} % ({_pct(fr[0])}–{_pct(fr[1])}) | {said} "
                  f"| {r['hands_equal_mean']} / {r['hands_equal_p95']} | {r['hands_regression_mean']} |")
        print(f"\n{seconds} s, {workers} workers, {runs} runs per cell")
        return
    print(json.dumps({"bench": "regress-tables", "alpha": 0.05, "beta": 0.05, "hands_per_group": 64,
                      "rows": rows, "seconds": seconds, "workers": workers, "machine": machine(),
                      "python": platform.python_version()}, ensure_ascii=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--candidate", default="greedy:chowness=0.9")
    ap.add_argument("--baseline", default="greedy")
    ap.add_argument("--groups", type=int, default=40)
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--tables", action="store_true", help="simulate the test's error rates and hands; play nothing")
    ap.add_argument("--runs", type=int, default=2000, help="--tables: simulated runs per cell (default 2000)")
    ap.add_argument("--markdown", action="store_true", help="--tables: print the Markdown table instead of JSON")
    ap.add_argument("--margins", default="10,5", help="--tables: the margins, comma-separated (default 10,5)")
    ap.add_argument("--save-groups", type=Path, default=None, metavar="FILE",
                    help="also write the duplicate groups' differences to FILE (JSON), e.g. tests/data/")
    args = ap.parse_args()
    if args.tables:
        try:
            margins = tuple(float(m) for m in args.margins.split(","))
            for m in margins:
                SprtSettings(margin=m)  # the test's own check of a margin
        except (ValueError, SprtError) as exc:
            ap.error(f"--margins: {exc}")
        if args.runs < 1 or args.workers < 1:
            ap.error("--runs and --workers must be 1 or more")
        tables(args.runs, args.markdown, margins, args.workers)
        return
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
    hand_scores = [abs(row.scores[rec.rotation])  # the candidate's seat in match c<r> is r + 1
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
