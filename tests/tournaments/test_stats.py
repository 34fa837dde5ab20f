"""Statistics: a hand-computed example, simulations with a known truth, the t quantile, the formats, the CLI."""

from __future__ import annotations

import csv
import io
import json
import math
import random
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.results import SeatResult
from tournaments.config import parse_config
from tournaments.runner import plan, run_job
from tournaments.stats import (
    CAVEATS,
    CSV_COLUMNS,
    MARKS,
    SKEW_MIN_GROUPS,
    SKEWED_MIN_GROUPS,
    Moments,
    SeatRow,
    StoreError,
    build_standings,
    cluster_ratio,
    compute_standings,
    fmt_interval,
    interval_caveat,
    ratio_estimate,
    t_quantile,
    to_csv,
    to_json,
    to_markdown,
)
from tournaments.store import FaultRow, MatchRecord, Store

# ------------------------------------------------------------------------------------------------ t quantile

# Reference values from scipy.stats.t.ppf (scipy 1.17), to all printed digits.
T_TABLE = [
    (0.975, 1, 12.706204736174694),
    (0.975, 2, 4.302652729749462),
    (0.975, 3, 3.1824463052837078),
    (0.975, 4, 2.7764451051977934),
    (0.975, 5, 2.5705818356363146),
    (0.975, 10, 2.228138851986274),
    (0.975, 30, 2.0422724563012378),
    (0.975, 100, 1.9839715185235518),
    (0.975, 1000, 1.9623390808264083),
    (0.975, 5000, 1.9604385517065073),
    (0.6, 7, 0.2631668613520229),
    (0.95, 10, 1.8124611228116756),
    (0.995, 5, 4.032142983555228),
    (0.999, 3, 10.214531852407383),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantile_matches_reference_values(p: float, df: int, expected: float) -> None:
    assert t_quantile(p, df) == pytest.approx(expected, rel=1e-11)
    assert t_quantile(1 - p, df) == pytest.approx(-expected, rel=1e-10)


def test_t_quantile_shape() -> None:
    assert t_quantile(0.5, 3) == 0.0
    values = [t_quantile(0.975, df) for df in range(1, 60)]
    assert all(a > b for a, b in pairwise(values))  # shrinks towards the normal quantile
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959964221767205, rel=1e-12)  # scipy
    ps = [0.51, 0.6, 0.8, 0.9, 0.99, 0.9999]
    assert all(t_quantile(a, 4) < t_quantile(b, 4) for a, b in pairwise(ps))


@pytest.mark.parametrize(("p", "df"), [(0.0, 3), (1.0, 3), (0.975, 0), (0.975, 2.5), (0.975, True)])
def test_t_quantile_rejects_bad_input(p: float, df: Any) -> None:
    with pytest.raises(ValueError):
        t_quantile(p, df)


# ------------------------------------------------------------------------------------------------ the estimator


def test_cluster_ratio_equal_sizes_is_the_textbook_standard_error() -> None:
    # Three clusters of 8 hands with means 6, -2, 5: mean 3, s^2 = (9 + 25 + 4) / 2 = 19, se = sqrt(19 / 3).
    e = cluster_ratio([(48, 8), (-16, 8), (40, 8)])
    assert e.value == pytest.approx(3.0)
    assert e.se == pytest.approx(math.sqrt(19 / 3))
    half = 4.302652729749462 * math.sqrt(19 / 3)
    assert e.ci95 is None  # three groups are too few for an interval (MIN_GROUPS)
    lo, hi = cluster_ratio([(48, 8), (-16, 8), (40, 8)], min_groups=2).ci95  # type: ignore[misc]
    assert lo <= 3 - half + 1e-9 and hi >= 3 + half - 1e-9  # skewed groups: the t interval and Hall's, together
    assert e.clusters == 3
    # symmetric groups (means 7, 3, -1: no skewness): exactly the t interval, s^2 = 16
    half = 4.302652729749462 * math.sqrt(16 / 3)
    sym = cluster_ratio([(56, 8), (24, 8), (-8, 8)], min_groups=2)
    assert sym.skew == pytest.approx(0.0, abs=1e-12)
    assert sym.ci95 == pytest.approx((3 - half, 3 + half))


def test_cluster_ratio_edge_cases() -> None:
    assert cluster_ratio([]).value is None
    one = cluster_ratio([(10, 4)])
    assert (one.value, one.se, one.ci95, one.clusters) == (2.5, None, None, 1)
    same = cluster_ratio([(8, 4), (4, 2)])
    assert same.value == 2.0 and same.se == 0.0 and same.ci95 is None  # not a false "± 0.00"
    assert cluster_ratio([(8, 4), (4, 2)], min_groups=2).ci95 == (2.0, 2.0)
    assert cluster_ratio([(5, 0), (8, 4)]).clusters == 1  # a cluster without hands says nothing


# ------------------------------------------------------------------------------------------------ a store by hand


def ranks(points: list[int]) -> list[float]:
    return [sum([u > t for u in points]) + (sum([u == t for u in points]) + 1) / 2 for t in points]


def record(match_id: str, group: str, seed: int, hands: int, seats: list[tuple[str, int]],
           extra: dict[str, dict[str, Any]] | None = None,
           faults: tuple[tuple[str, int, str], ...] = ()) -> MatchRecord:
    names = [n for n, _ in seats]
    points = [p for _, p in seats]
    rk = ranks(points)
    extra = extra or {}
    seat_rows = []
    for i, (name, pts) in enumerate(seats):
        row = SeatResult(i + 1, name, pts, rk[i], hands, answers=10, answer_seconds=0.02, max_answer_seconds=0.004)
        seat_rows.append(replace(row, **extra.get(name, {})))
    fault_rows = [FaultRow(0, pos, names[pos - 1], kind, "x") for _, pos, kind in faults]
    return MatchRecord(match_id, 0, group, seed, 0, (names[0], names[1], names[2], names[3]), hands,
                       (points[0], points[1], points[2], points[3]), None, None, 1.0, tuple(seat_rows), (),
                       tuple(fault_rows))


A, B, C, D = "alpha", "beta", "gamma", "dummy-greedy"


def hand_store(path: Path) -> Path:
    """Three duplicate groups (seeds 1..3); group 2 is one long match, so clusters have unequal hands."""
    with Store(path) as s:
        s.initialise("by-hand", {})
        s.record(record("m1", "g1", 1, 4, [(A, 40), (B, 40), (C, -40), (D, -40)],
                        {A: {"wins": 2, "self_draws": 1}, B: {"wins": 1, "deal_ins": 1}}))
        s.record(record("m2", "g1", 1, 4, [(B, 20), (A, 8), (D, -8), (C, -20)],
                        {B: {"faults": 3}}, faults=((B, 1, "timeout"), (B, 1, "timeout"), (B, 1, "illegal"))))
        s.record(record("m3", "g2", 2, 12, [(C, -12), (D, -12), (A, -36), (B, 60)],
                        {A: {"deal_ins": 3, "max_answer_seconds": 0.05}}))
        s.record(record("m4", "g3", 3, 4, [(A, 24), (B, -24), (C, 24), (D, -24)], {A: {"wins": 1}}))
        s.record(record("m5", "g3", 3, 4, [(D, -48), (A, 16), (B, 16), (C, 16)], {A: {"wins": 1}}))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return hand_store(tmp_path / "hand.sqlite")


def test_hand_example_means_and_intervals(store: Path) -> None:
    st = compute_standings(store)
    assert (st.name, st.matches, st.hands, st.groups) == ("by-hand", 5, 28, 3)
    alpha = next(b for b in st.bots if b.name == A)
    # alpha: groups (points, hands) = (40 + 8, 8), (-36, 12), (24 + 16, 8); mean 52 / 28 = 13 / 7.
    assert (alpha.matches, alpha.hands, alpha.points) == (5, 28, 52)
    assert alpha.mean.value == pytest.approx(13 / 7)
    # residuals Y_g - r N_g = 232/7, -408/7, 176/7; var = Ge/(Ge - 1) * sum(res^2) / 28^2, with the effective
    # number of groups Ge = 28^2 / (8^2 + 12^2 + 8^2) = 784/272 (unequal groups: a little more than CR1's 3/2)
    ge = 784 / 272
    se = math.sqrt(ge / (ge - 1) * (232**2 + 408**2 + 176**2) / 49) / 28
    assert alpha.mean.se == pytest.approx(se)
    assert alpha.mean.ci95 is None  # three groups: too few for an interval
    assert fmt_interval(alpha.mean, 1, sign=True) == "+1.9 (too few groups)"
    # ranks 1.5, 2 | 4 | 1.5, 2: clusters (3.5, 2), (4, 1), (3.5, 2); mean 11 / 5; residuals -0.9, 1.8, -0.9;
    # Ge = 5^2 / (4 + 1 + 4) = 25/9, Ge/(Ge - 1) = 25/16
    assert alpha.rank.value == pytest.approx(2.2)
    assert alpha.rank.se == pytest.approx(math.sqrt(25 / 16 * (0.81 + 3.24 + 0.81) / 25))  # = 0.5511
    assert alpha.rank.se == pytest.approx(0.5511, abs=1e-4)
    assert alpha.rank.ci95 is None
    # first place: 1/2 (two-way tie), 0, 0, 1/2 (two-way tie), 1/3 (three-way tie) over 5 matches
    assert alpha.first_rate.value == pytest.approx((0.5 + 0.5 + 1 / 3) / 5)
    assert alpha.win_rate == pytest.approx(4 / 28)
    assert alpha.self_draw_rate == pytest.approx(1 / 28)
    assert alpha.deal_in_rate == pytest.approx(3 / 28)
    assert alpha.mean_answer_ms == pytest.approx(2.0)  # 5 * 0.02 s over 50 answers
    assert alpha.max_answer_ms == pytest.approx(50.0)
    assert alpha.faults == {} and alpha.fault_count == 0 and not alpha.dummy

    beta = next(b for b in st.bots if b.name == B)
    assert beta.mean.value == pytest.approx(112 / 28)
    assert beta.first_rate.value == pytest.approx((0.5 + 1 + 1 + 0 + 1 / 3) / 5)
    assert beta.faults == {"illegal": 1, "timeout": 2} and beta.fault_count == 3
    assert beta.deal_in_rate == pytest.approx(1 / 28)

    dummy = next(b for b in st.bots if b.name == D)
    assert dummy.dummy
    # best mean first: beta 4, alpha 13/7, gamma -32/28, dummy -132/28
    assert [b.name for b in st.bots] == [B, A, C, D]
    assert sum(b.points for b in st.bots) == 0


def test_hand_example_head_to_head(store: Path) -> None:
    st = compute_standings(store)
    h = {(x.a, x.b): x for x in st.head_to_head}
    assert len(h) == 12  # every ordered pair of the four met
    ab = h[(A, B)]
    # alpha - beta per match: 0, -12 | -96 | 48, 0 -> clusters (-12, 8), (-96, 12), (48, 8); mean -60/28
    assert (ab.matches, ab.hands, ab.groups) == (5, 28, 3)
    assert ab.diff.value == pytest.approx(-15 / 7)
    se = math.sqrt(784 / 512 * (36**2 + 492**2 + 456**2) / 49) / 28  # Ge/(Ge - 1), Ge = 784/272
    assert ab.diff.se == pytest.approx(se)
    assert ab.diff.ci95 is None
    ba = h[(B, A)]
    assert ba.diff.value == pytest.approx(15 / 7) and ba.diff.se == pytest.approx(se)
    assert not ab.diff.excludes_zero


def test_one_group_has_no_interval(tmp_path: Path) -> None:
    path = tmp_path / "one.sqlite"
    with Store(path) as s:
        s.record(record("m1", "g1", 1, 4, [(A, 40), (B, 0), (C, -40), (D, 0)]))
        s.record(record("m2", "g1", 1, 4, [(B, 8), (C, 0), (D, -8), (A, 0)]))
    st = compute_standings(path)
    assert all(b.mean.ci95 is None and b.rank.ci95 is None and b.mean.value is not None for b in st.bots)
    assert any("at least 5 duplicate groups" in n for n in st.notes)
    data = to_json(st)
    assert all(b["ci95"] is None and b["avg_rank_ci95"] is None for b in data["bots"])
    assert all(h["ci95"] is None for h in data["head_to_head"])
    assert "(too few groups)" in to_markdown(st) and "± n/a" not in to_markdown(st)


def test_cluster_by_seed_merges_groups_that_share_a_seed(tmp_path: Path) -> None:
    path = tmp_path / "seed.sqlite"
    with Store(path) as s:
        s.record(record("a1", "g0000-s1", 1, 4, [(A, 40), (B, 0), (C, -40), (D, 0)]))
        s.record(record("b1", "g0001-s1", 1, 4, [(A, 8), (B, 0), (C, -8), ("delta", 0)]))
        s.record(record("a2", "g0000-s2", 2, 4, [(A, -4), (B, 0), (C, 4), (D, 0)]))
    by_group = compute_standings(path)
    by_seed = compute_standings(path, cluster_by="seed")
    alpha_g = next(b for b in by_group.bots if b.name == A)
    alpha_s = next(b for b in by_seed.bots if b.name == A)
    assert (by_group.groups, by_seed.groups) == (3, 2)
    assert alpha_g.mean.value == alpha_s.mean.value == pytest.approx(44 / 12)
    assert (alpha_g.mean.clusters, alpha_s.mean.clusters) == (3, 2)
    assert alpha_s.mean.se == pytest.approx(cluster_ratio([(48, 8), (-4, 4)]).se)
    assert "clustered by seed" in by_seed.notes[0]
    with pytest.raises(ValueError):
        build_standings([], cluster_by="match")  # type: ignore[arg-type]


def test_a_dummy_in_two_seats(tmp_path: Path) -> None:
    path = tmp_path / "dummy.sqlite"
    with Store(path) as s:
        s.record(record("m1", "g1", 1, 4, [(A, 40), (D, 20), (B, -20), (D, -40)]))
    st = compute_standings(path)
    dummy = next(b for b in st.bots if b.name == D)
    assert (dummy.matches, dummy.hands, dummy.points) == (1, 8, -20)  # hands are seat-hands
    h = {(x.a, x.b): x for x in st.head_to_head}
    assert h[(A, D)].diff.value == pytest.approx((40 - (-10)) / 4)  # the dummy's mean over its two seats
    assert (D, D) not in h


# ------------------------------------------------------------------------------------------------ simulations

MU = {"A": 10.0, "B": 4.0, "C": -6.0, "D": -8.0}  # true points per hand


def simulate(rng: random.Random, groups: int, sigma_u: float, sigma_e: float, hands: int = 8,
             matches_per_group: Any = 4) -> list[SeatRow]:
    """One table of four bots: each group (a seed) gives each bot a shared luck u ~ N(0, sigma_u) per hand,
    so rows within a group are correlated; each match adds its own per-hand noise ~ N(0, sigma_e)."""
    rows = []
    names = list(MU)
    for g in range(groups):
        luck = {n: rng.gauss(0, sigma_u) for n in names}
        count = matches_per_group(rng) if callable(matches_per_group) else matches_per_group
        for m in range(count):
            seats = names[m % 4:] + names[:m % 4]
            pts = [hands * (MU[n] + luck[n] + rng.gauss(0, sigma_e)) for n in seats]
            rk = ranks(pts)  # type: ignore[arg-type]
            for i, n in enumerate(seats):
                rows.append(SeatRow(f"g{g}-m{m}", f"g{g}", g, SeatResult(i + 1, n, pts[i], rk[i], hands)))
    return rows


REPS = 600
# Coverage of a correct 95% interval over REPS independent repetitions is Binomial(REPS, 0.95) / REPS, with
# standard deviation sqrt(0.95 * 0.05 / 600) = 0.0089; we accept 0.95 +- 0.03 (3.4 standard deviations: a
# correct method fails this by chance about once in 1500 seeds, and the seed is fixed, so the test is stable).
TOL = 0.03


@pytest.mark.slow
def test_interval_covers_a_known_difference_95_percent_of_the_time() -> None:
    rng = random.Random(20240611)
    z = 1.959963984540054
    cover_mean = cover_diff = cover_z = 0
    for _ in range(REPS):
        st = build_standings(simulate(rng, groups=5, sigma_u=10, sigma_e=30))
        a = next(b for b in st.bots if b.name == "A")
        ab = next(h for h in st.head_to_head if (h.a, h.b) == ("A", "B"))
        lo, hi = a.mean.ci95  # type: ignore[misc]
        cover_mean += lo <= MU["A"] <= hi
        lo, hi = ab.diff.ci95  # type: ignore[misc]
        cover_diff += lo <= MU["A"] - MU["B"] <= hi
        cover_z += abs(ab.diff.value - (MU["A"] - MU["B"])) <= z * ab.diff.se  # type: ignore[operator]
    assert abs(cover_mean / REPS - 0.95) <= TOL
    assert abs(cover_diff / REPS - 0.95) <= TOL
    # With 5 groups, a normal quantile instead of t(4) would cover only about 88% of the time.
    assert cover_z / REPS < 0.95 - TOL


@pytest.mark.slow
def test_interval_covers_with_unequal_groups() -> None:
    # An interrupted tournament leaves groups with 1..4 matches: the ratio estimator is then approximate,
    # so the same tolerance checks that the approximation is good at 10 groups.
    rng = random.Random(7)
    cover = 0
    for _ in range(REPS):
        st = build_standings(simulate(rng, groups=10, sigma_u=10, sigma_e=30,
                                      matches_per_group=lambda r: r.randint(1, 4)))
        ab = next(h for h in st.head_to_head if (h.a, h.b) == ("A", "B"))
        lo, hi = ab.diff.ci95  # type: ignore[misc]
        cover += lo <= MU["A"] - MU["B"] <= hi
    assert abs(cover / REPS - 0.95) <= TOL


def test_clustering_gives_the_right_se_when_rows_in_a_group_are_correlated() -> None:
    # Strong shared luck per group: per-hand mean of a group ~ mu + u + mean of 4 match noises, so
    # var(estimate) = (sigma_u^2 + sigma_e^2 / 4) / G exactly.
    rng = random.Random(99)
    groups, sigma_u, sigma_e = 5, 40.0, 20.0
    true_var = (sigma_u**2 + sigma_e**2 / 4) / groups
    estimates: list[float] = []
    clustered: list[float] = []
    naive: list[float] = []
    for _ in range(REPS):
        rows = simulate(rng, groups=groups, sigma_u=sigma_u, sigma_e=sigma_e)
        a = next(b for b in build_standings(rows).bots if b.name == "A")
        assert a.mean.value is not None and a.mean.se is not None
        estimates.append(a.mean.value)
        clustered.append(a.mean.se**2)
        # what treating every match as independent would say
        se_naive = cluster_ratio([(r.seat.points, r.seat.hands) for r in rows if r.seat.bot == "A"]).se
        assert se_naive is not None
        naive.append(se_naive**2)
    mean = sum(estimates) / REPS
    empirical_var = sum((e - mean) ** 2 for e in estimates) / (REPS - 1)
    # The simulation is what we think it is (a sample variance over 600 reps is within ~6% at 1 sd).
    assert empirical_var == pytest.approx(true_var, rel=0.2)
    # CR1 with equal groups is unbiased for the variance: each SE^2 is true_var * chi2(4) / 4, whose mean over
    # 600 reps has a relative sd of sqrt(2 / 4 / 600) = 0.029; 10% is 3.4 sd.
    assert sum(clustered) / REPS == pytest.approx(true_var, rel=0.10)
    # Ignoring the groups underestimates the variance about fourfold here.
    assert sum(naive) / REPS < 0.5 * true_var


# ------------------------------------------------------------------------------------------------ formats


def test_json_keys_and_order(store: Path) -> None:
    data = to_json(compute_standings(store))
    json.dumps(data, allow_nan=False)
    assert {"matches", "hands", "bots", "head_to_head"} <= set(data)
    keys = {"name", "matches", "hands", "points", "mean", "ci95", "avg_rank", "avg_rank_ci95", "first_rate", "win_rate",
            "self_draw_rate", "deal_in_rate", "faults", "mean_answer_ms", "max_answer_ms", "dummy"}
    assert all(keys <= set(b) for b in data["bots"])
    means = [b["mean"] for b in data["bots"]]
    assert means == sorted(means, reverse=True)
    assert data["bots"][0]["name"] == B and data["bots"][0]["faults"] == {"illegal": 1, "timeout": 2}
    assert data["bots"][0]["ci95"] is None and data["bots"][0]["se"] > 0  # 3 groups: too few for an interval
    assert {"a", "b", "matches", "hands", "mean_diff", "ci95"} <= set(data["head_to_head"][0])


def test_csv_one_row_per_bot(store: Path) -> None:
    text = to_csv(compute_standings(store))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS)
    assert [r["name"] for r in rows] == [B, A, C, D]
    assert rows[0]["faults_by_kind"] == "illegal=1;timeout=2"
    assert rows[3]["dummy"] == "1"
    assert float(rows[1]["mean"]) == pytest.approx(13 / 7)


def test_markdown_table(store: Path) -> None:
    md = to_markdown(compute_standings(store))
    lines = md.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| # |"))
    assert lines[header + 1].startswith("|---:|---|")
    assert lines[header + 2].startswith(f"| 1 | {B} | 5 | 28 | 112 | +4.0 (too few groups) | 1.80 (too few groups) |")
    assert "dummy-greedy (dummy)" in md
    assert "### Head-to-head" in md
    assert "### Head-to-head" not in to_markdown(compute_standings(store), head_to_head=False)
    assert "5 matches, 28 hands, 3 duplicate groups." in md


def test_markdown_escapes_pipes() -> None:
    rows = [SeatRow("m", "g", 1, SeatResult(i + 1, n, p, r, 4)) for i, (n, p, r) in
            enumerate([("a|b", 4, 1), ("c", 0, 2.5), ("d", 0, 2.5), ("e", -4, 4)])]
    assert "a\\|b" in to_markdown(build_standings(rows))


# ------------------------------------------------------------------------------------------------ the command


def test_cli_formats(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["standings", str(store), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"] == 5 and data["head_to_head"]
    assert main(["standings", str(store), "--format", "json", "--no-head-to-head"]) == 0
    assert "head_to_head" not in json.loads(capsys.readouterr().out)
    assert main(["standings", str(store), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("name,dummy,matches,hands")
    assert main(["standings", str(store), "--format", "markdown"]) == 0
    assert "| # | bot |" in capsys.readouterr().out
    assert main(["standings", str(store)]) == 0
    out = capsys.readouterr().out
    assert "Standings: by-hand" in out and "Head-to-head" in out and "dummy-greedy" in out and "too few" in out
    assert main(["standings", str(store), "--no-head-to-head", "--cluster", "seed"]) == 0
    out = capsys.readouterr().out
    assert "Head-to-head" not in out and "3 seeds" in out


def test_cli_empty_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.sqlite"
    Store(path).close()
    assert main(["standings", str(path)]) == 0
    assert "No finished matches yet" in capsys.readouterr().out
    assert main(["standings", str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["bots"] == []


@pytest.mark.parametrize("kind", ["missing", "garbage", "directory", "not-a-store"])
def test_cli_bad_store(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = tmp_path / "s.sqlite"
    if kind == "garbage":
        path.write_text("this is not a database\n" * 10)
    elif kind == "directory":
        path.mkdir()
    elif kind == "not-a-store":
        import sqlite3

        con = sqlite3.connect(path)
        con.execute("CREATE TABLE other (x)")
        con.commit()
        con.close()
    assert main(["standings", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mjref standings: {path}: ")
    with pytest.raises(StoreError, match="s.sqlite"):
        compute_standings(path)


def test_a_real_tournament(tmp_path: Path) -> None:
    cfg = parse_config({"name": "real", "seeds": 2, "hands": 1, "store": "real.sqlite",
                        "bots": [{"name": n, "builtin": b} for n, b in
                                 (("g", "greedy"), ("r", "random"), ("d", "drawdiscard"))]})
    p = plan(cfg, tmp_path)
    with Store(p.store_path) as store:  # play in this process, as a worker would: quick, and the same records
        for job in p.jobs:
            store.record(run_job(job))
    st = compute_standings(p.store_path)
    assert (st.matches, st.groups) == (8, 2)
    names = {b.name for b in st.bots}
    assert names == {"g", "r", "d", "dummy-greedy"}
    assert all(b.mean.ci95 is None and b.mean.se is not None for b in st.bots)  # 2 groups: too few for intervals
    assert all(b.matches == 8 for b in st.bots)


# ------------------------------------------------------------------------------------------------ skew and sizes
def _skew(clusters: list[tuple[float, float]]) -> float:
    """The residuals' sample skewness, directly."""
    r = sum(y for y, _ in clusters) / sum(n for _, n in clusters)
    e = [y - r * n for y, n in clusters]
    m2 = sum(x * x for x in e) / len(e)
    return sum(x**3 for x in e) / len(e) / m2**1.5


def test_skewness_from_the_moments_is_the_residuals() -> None:
    clusters = [(48.0, 8.0), (-36.0, 12.0), (40.0, 8.0), (3.0, 1.0), (-70.0, 20.0)]
    m = Moments.of(clusters)
    assert m.skew(m.sy / m.sn) == pytest.approx(_skew(clusters), rel=1e-9)
    assert Moments(m.g, m.sy, m.sn, m.syy, m.syn, m.snn).skew(0.0) is None  # no cubes: unknown
    assert Moments.of([(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]).skew(0.5) is None  # no spread: no skewness


def test_the_stores_kept_cubes_are_the_rows_cubes(store: Path) -> None:
    """The skewness standings read from a store's kept clusters (and the one summed by SQLite) is the one its rows
    give: alpha's groups are (48, 8), (-36, 12), (40, 8); alpha - beta's (-12, 8), (-96, 12), (48, 8)."""
    st = compute_standings(store)
    alpha = next(b for b in st.bots if b.name == A)
    assert alpha.mean.skew == pytest.approx(_skew([(48, 8), (-36, 12), (40, 8)]), rel=1e-9)
    ab = next(h for h in st.head_to_head if (h.a, h.b) == (A, B))
    ba = next(h for h in st.head_to_head if (h.a, h.b) == (B, A))
    assert ab.diff.skew == pytest.approx(_skew([(-12, 8), (-96, 12), (48, 8)]), rel=1e-9)
    assert ba.diff.skew == pytest.approx(-ab.diff.skew, rel=1e-9)  # type: ignore[operator]


def test_caveats_say_what_an_interval_cannot_vouch_for() -> None:
    # by the number of groups, not by their skewness: the intervals that miss a skewed result are those whose groups
    # look unskewed (the slow tests below)
    assert interval_caveat(5) == interval_caveat(SKEW_MIN_GROUPS - 1) == "few"
    assert interval_caveat(5, bounded=True) == "few"  # ranks and rates too
    assert interval_caveat(SKEW_MIN_GROUPS) == interval_caveat(SKEWED_MIN_GROUPS - 1) == "short"
    assert interval_caveat(SKEW_MIN_GROUPS, bounded=True) is None  # ranks and rates: no "very skewed"
    assert interval_caveat(SKEWED_MIN_GROUPS) is None and interval_caveat(10_000) is None
    few = cluster_ratio([(float(i), 1.0) for i in range(5)])
    assert fmt_interval(few, 1) == f"2.0 ± {few.half_width:.1f} †"  # the note under the table says what † means
    short = cluster_ratio([(float(i % 7), 1.0) for i in range(20)])
    assert short.caveat == "short" and fmt_interval(short, 1) == f"{short.value:.1f} ± {short.half_width:.1f} ‡"
    skewed = cluster_ratio([(0.0, 1.0)] * 19 + [(100.0, 1.0)])  # the same mark, however skewed the groups
    assert skewed.caveat == "short" and skewed.skew is not None and skewed.skew > 4
    plain = cluster_ratio([(float(i % 7), 1.0) for i in range(SKEWED_MIN_GROUPS)])
    assert plain.caveat is None and fmt_interval(plain).endswith(f"{plain.half_width:.1f}")
    assert set(CAVEATS) == set(MARKS) == {"few", "short"}
    # points whose third moments were not summed (a store of more than CUBES_MAX_CLUSTERS groups) are marked alike
    unknown = ratio_estimate(Moments.of([(float(i % 7), 1.0) for i in range(20)], cubes=False))
    assert unknown.skew is None and unknown.caveat == "short"


def test_caveats_are_in_the_tables_and_the_json(store: Path) -> None:
    st = compute_standings(store)
    out = to_json(st)
    assert out["bots"][0]["ci95"] is None and out["bots"][0]["ci95_caveat"] is None  # 3 groups: no interval
    rows = [SeatRow(f"m{g}", f"g{g}", g, SeatResult(1, "A", (g * 37) % 11 - (50 if g == 3 else 0), 1.0, 4))
            for g in range(6)]
    rows += [SeatRow(f"m{g}", f"g{g}", g, SeatResult(2, "B", 0, 2.0, 4)) for g in range(6)]
    st = build_standings(rows)
    a = next(b for b in to_json(st)["bots"] if b["name"] == "A")
    assert a["ci95"] is not None and a["ci95_caveat"] == CAVEATS["few"]
    md = to_markdown(st)
    assert " † |" in md and "- † 95 % if not skewed: with fewer than 10 duplicate groups" in md
    notes = build_standings(_ten_groups()).notes
    assert not any("†" in n for n in notes) and any(n.startswith("‡ 95 % if not very skewed") for n in notes)


def _ten_groups() -> list[SeatRow]:
    return [SeatRow(f"m{g}", f"g{g}", g, SeatResult(1 + (g % 2), name, p, 1.0, 4))
            for g in range(10) for name, p in (("A", (g * 37) % 11), ("B", -((g * 37) % 11)))]


def test_points_from_ten_to_fifty_groups_say_so_in_each_cell_and_in_a_note() -> None:
    def rows(groups: int) -> list[SeatRow]:
        out = [SeatRow(f"m{g}", f"g{g}", g, SeatResult(1, "A", 400 if g == 0 else g % 3, 1.0 + g % 2, 4))
               for g in range(groups)]
        return out + [SeatRow(f"m{g}", f"g{g}", g, SeatResult(2, "B", 0, 2.0 - g % 2, 4)) for g in range(groups)]

    st = build_standings(rows(12))
    a = next(b for b in st.bots if b.name == "A")
    assert a.mean.caveat == "short" and fmt_interval(a.mean, 1, sign=True).endswith(" ‡")
    assert a.rank.caveat is None  # a rank is bounded
    assert all(h.diff.caveat == "short" for h in st.head_to_head)
    md = to_markdown(st)
    assert " ‡ |" in md and "- ‡ 95 % if not very skewed: with 10 to 49 duplicate groups" in md
    assert next(b for b in to_json(st)["bots"] if b["name"] == "A")["ci95_caveat"] == CAVEATS["short"]
    assert {r["ci95_caveat"] for r in csv.DictReader(io.StringIO(to_csv(st)))} == {CAVEATS["short"]}
    st = build_standings(rows(SKEWED_MIN_GROUPS))
    assert not any(n.startswith(("‡", "†")) for n in st.notes) and "‡" not in to_markdown(st)
    assert all(b.mean.caveat is None for b in st.bots)


def _coverage(draw: Any, groups: int, reps: int, seed: int) -> tuple[float, float]:
    """(coverage of the intervals, share marked with a caveat) over ``reps`` simulated tournaments of
    ``groups`` clusters from ``draw`` (true mean 0)."""
    rng = random.Random(seed)
    covered = marked = 0
    for _ in range(reps):
        e = cluster_ratio([draw(rng) for _ in range(groups)])
        assert e.lo is not None and e.hi is not None
        covered += e.lo <= 0.0 <= e.hi
        marked += e.caveat is not None
    return covered / reps, marked / reps


# 4,000 repetitions: a coverage's sd is 0.34 points, so ±1.5 points is 4.4 sd from the method's true coverage
COVERAGE_REPS = 4000


@pytest.mark.slow
@pytest.mark.parametrize("groups", [5, 10])
def test_unequal_groups_cover_95_percent_within_one_and_a_half_points(groups: int) -> None:
    """Groups of very unequal size (lognormal hands: an interrupted tournament, or bots that sat out), a group's
    variance growing with its hands.  CR1's G/(G-1) covered 91.9 % at 5 such groups and 92.4 % at 10; the effective
    number of groups brings it within 95 ± 1.5."""

    def draw(rng: random.Random) -> tuple[float, float]:
        n = math.exp(rng.gauss(2.0, 1.0))
        return rng.gauss(0.0, math.sqrt(n)), n

    coverage, _ = _coverage(draw, groups, COVERAGE_REPS, seed=groups)
    assert 0.935 <= coverage <= 0.965, coverage


def _exponential(rng: random.Random) -> tuple[float, float]:
    return rng.expovariate(1.0) - 1.0, 16.0  # skew 2: many small losses, rare big wins


@pytest.mark.slow
@pytest.mark.parametrize(("name", "draw", "groups"), [
    ("normal", lambda rng: (rng.gauss(0.0, 1.0), 16.0), 10),
    ("normal", lambda rng: (rng.gauss(0.0, 1.0), 16.0), 50),
    ("skewed", _exponential, 10),
    ("skewed", _exponential, 20),
    ("heavy-tailed", lambda rng: (rng.gauss(0.0, 1.0) / math.sqrt(rng.gammavariate(1.5, 2.0) / 3), 16.0), 10),
])
def test_intervals_cover_95_percent_within_one_and_a_half_points(name: str, draw: Any, groups: int) -> None:
    """From 10 groups on the interval (t, and Hall's skewness-corrected t where the groups are skewed) covers
    95 ± 1.5 % for normal, skewed (exponential: the t interval alone covered 90 % at 10 groups, 92 % at 20) and
    heavy-tailed (Student's t, 3 degrees of freedom) groups."""
    coverage, _ = _coverage(draw, groups, COVERAGE_REPS, seed=groups)
    # Heavy tails make the t interval itself a little conservative (96.0 % at 10 groups for t alone, 96.2 % with
    # the correction, bench/coverage.py with 10,000 runs): at the upper edge, where 4,000 runs' sampling error
    # (0.3 points) can cross it; the upper side is allowed three of those errors there.
    upper = 0.965 + (0.009 if name == "heavy-tailed" else 0.0)
    assert 0.935 <= coverage <= upper, (name, groups, coverage)


@pytest.mark.slow
def test_a_skewed_result_below_ten_groups_says_so() -> None:
    """Exponential groups at 5 groups: no method measured reaches 93.5 % (t 88 %, with the skewness correction 93 %,
    bootstrap-t 93 %), and the skewness cannot be told from 5 groups: every interval says so."""
    coverage, marked = _coverage(_exponential, 5, COVERAGE_REPS, seed=1)
    assert coverage < 0.935 and marked == 1.0


def _lognormal(rng: random.Random) -> tuple[float, float]:
    return rng.lognormvariate(0.0, 1.0) - math.exp(0.5), 16.0  # skew 6.2


@pytest.mark.slow
@pytest.mark.parametrize(("groups", "below"), [(10, 0.935), (20, 0.945)])
def test_a_very_skewed_result_below_fifty_groups_says_so(groups: int, below: float) -> None:
    """Lognormal groups (skew 6.2) cover 90.7 % at 10 groups and 92.8 % at 20 (bench/coverage.py, 10,000 runs; 20
    groups are close to 93.5 %, so they are checked short of 95 % by 3 sampling errors of 4,000 runs): every
    interval of points from 10 to 49 groups says "95 % if not very skewed"."""
    coverage, marked = _coverage(_lognormal, groups, COVERAGE_REPS, seed=groups)
    assert coverage < below and marked == 1.0, coverage


@pytest.mark.slow
@pytest.mark.parametrize(("name", "draw"), [("very skewed", _lognormal), ("skewed", _exponential)])
def test_from_fifty_groups_a_very_skewed_result_is_covered_unmarked(name: str, draw: Any) -> None:
    coverage, marked = _coverage(draw, 50, COVERAGE_REPS, seed=50)
    assert 0.935 <= coverage <= 0.965 and marked == 0.0, (name, coverage)


@pytest.mark.slow
def test_no_rule_on_the_groups_can_mark_the_intervals_that_miss() -> None:
    """Why the caveat goes by the number of groups: at 10 lognormal groups the intervals that miss are those whose
    groups drew none of the rare big values, and their sample skewness (below 1) is what normal groups show most of
    the time; a mark on the skewness would leave them unmarked and mark intervals that cover."""
    rng = random.Random(3)
    low = low_covered = high = high_covered = normal_low = 0
    for _ in range(COVERAGE_REPS):
        e = cluster_ratio([_lognormal(rng) for _ in range(10)])
        assert e.lo is not None and e.hi is not None and e.skew is not None
        hit = e.lo <= 0.0 <= e.hi
        if e.skew < 1.0:
            low, low_covered = low + 1, low_covered + hit
        else:
            high, high_covered = high + 1, high_covered + hit
        n = cluster_ratio([(rng.gauss(0.0, 1.0), 16.0) for _ in range(10)])
        normal_low += n.skew is not None and n.skew < 1.0
    assert low_covered / low < 0.85 and high_covered / high > 0.95, (low_covered / low, high_covered / high)
    assert normal_low / COVERAGE_REPS > 0.9
