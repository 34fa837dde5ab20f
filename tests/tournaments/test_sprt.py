"""The SPRT of ``mjref regress``, without bots: the formula, degenerate streams, and calibration by simulation.

Calibration: streams with a known mean difference are drawn from a model shaped like real per-group differences
(see ``GroupModel``), the test is run to a verdict many times, and the rate of wrong verdicts is compared with
``alpha`` (a regression of exactly ``margin`` that passes) and ``beta`` (an equal bot called a regression).  The
boundaries are the worst case: any mean below ``-margin`` fails more surely, any mean above 0 passes more surely.

The tolerance is a binomial bound: with N runs and a true error rate of exactly ``alpha``, the number of wrong
verdicts exceeds ``binomial_upper(N, alpha)`` with probability at most 0.1 %.  The generator is seeded, so the
tests are deterministic; the bound says the seed was not picked to make them pass.
"""

from __future__ import annotations

import json
import math
import random
from bisect import bisect
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import pytest

from tournaments.regress import DEFAULT_TAIL_LOSS, resampled_groups
from tournaments.sprt import (
    Sprt,
    SprtError,
    SprtSettings,
    best_stake,
    expected_groups,
    exponential_groups,
    fault_excess_p,
    jackpot_groups,
    llr,
    lognormal_groups,
    normal_groups,
    pass_probability,
    poisson_loss_groups,
    rare_loss_groups,
    simulate,
    small_sample_factor,
    t_quantile,
    two_point_groups,
)


def binomial_upper(n: int, p: float, tail: float = 1e-3) -> int:
    """The smallest k with P(Binomial(n, p) > k) ≤ tail."""
    cdf = 0.0
    for k in range(n + 1):
        log_pmf = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p) \
            + (n - k) * math.log1p(-p)
        cdf += math.exp(log_pmf)
        if 1 - cdf <= tail:
            return k
    return n


@dataclass
class GroupModel:
    """Per-group differences shaped like real ones.

    Measured (bench data, greedy vs greedy:chowness=0.9, 1v3, 4-hand matches, 200 groups): a group's difference is
    the mean of 16 seat-hands; 12 % of groups are exactly 0 (every hand played the same), the rest symmetric with
    heavy tails (skew -0.2, excess kurtosis 0.8).  The model: each of ``k`` seat-hands played identically
    (difference 0) with probability ``p_same``, else the difference of two independent hand scores, each
    ``±(100 + 20·tai)`` (×3 for a self-draw) with a geometric number of tai, or 0; the mean shifted by ``delta``.
    With the defaults: 16 % zeros, excess kurtosis 1.9: heavier-tailed than measured, so a harsher test.
    """

    k: int = 16
    p_same: float = 0.85

    def __post_init__(self) -> None:
        scores: dict[int, float] = {0: 0.45}
        for tai in range(1, 30):
            p_tai = 0.4 * 0.6 ** (tai - 1)
            amount = 100 + 20 * tai
            for mult, p in ((-1, 0.35), (3, 0.075), (1, 0.125)):
                scores[mult * amount] = scores.get(mult * amount, 0.0) + p * p_tai
        total = sum(scores.values())
        # ``apart``: the difference of two independent hand scores (a seat-hand that played differently)
        apart: dict[int, float] = {}
        for a, pa in scores.items():
            for b, pb in scores.items():
                apart[a - b] = apart.get(a - b, 0.0) + pa * pb / total**2
        self.values = list(apart)
        self.cum = list(accumulate(apart[v] for v in self.values))
        # P(m of the k seat-hands played differently), m = 0..k: Binomial(k, 1 - p_same), cumulated
        q = 1 - self.p_same
        self.cum_apart = list(accumulate(math.comb(self.k, m) * q**m * self.p_same ** (self.k - m)
                                         for m in range(self.k + 1)))
        # the law of one seat-hand's difference: 0 with probability p_same, else a draw from ``apart``
        self.hand = {v: (1 - self.p_same) * p for v, p in apart.items()}
        self.hand[0] += self.p_same
        mean = sum(v * p for v, p in self.hand.items())
        self.hand_sd = math.sqrt(sum((v - mean) ** 2 * p for v, p in self.hand.items()))
        self.sd = self.hand_sd / math.sqrt(self.k)

    def draw(self, rng: random.Random, delta: float) -> float:
        """The mean of ``k`` seat-hands, each 0 with probability ``p_same``, else a draw from ``apart``.

        Drawn as: m ~ Binomial(k, 1 − p_same), the number of seat-hands that played differently, then m draws from
        ``apart``; the others are 0.  The same law as k draws from the mixture ``p_same·δ0 + (1 − p_same)·apart``:
        drawing one seat-hand from the mixture is choosing "same" (probability p_same) or "apart" independently of
        everything, then a value from the chosen part; so the k hands' choices are k independent Bernoulli trials,
        their count m is Binomial(k, 1 − p_same), and given m the values of the hands that played apart are m
        independent draws from ``apart`` (the hands that played the same add 0).  The sum of the k hands is then the
        sum of those m draws, whichever hands they were.  (The values are integers: every sum is exact, in any
        order.)  One uniform and on average k·(1 − p_same) = 2.4 draws, instead of k = 16 draws of the mixture;
        ``test_the_group_model_draws_its_law`` checks the mean, the variance and the share of all-zero groups
        against the model's exact ones."""
        u = rng.random
        m = bisect(self.cum_apart, u() * self.cum_apart[-1])
        if not m:
            return 0.0 + delta
        # rng.choices(self.values, cum_weights=self.cum, k=m), written out
        values, cum, total = self.values, self.cum, self.cum[-1]
        return sum([values[bisect(cum, u() * total)] for _ in range(m)]) / self.k + delta


def run_to_verdict(rng: random.Random, model: GroupModel, delta: float, settings: SprtSettings,
                   max_groups: int = 2000) -> str:
    s = Sprt(settings)
    for _ in range(max_groups):
        verdict = s.add(model.draw(rng, delta))
        if verdict is not None:
            return verdict
    return "inconclusive"


MODEL = GroupModel()


def test_the_group_model_draws_its_law() -> None:
    """``GroupModel.draw`` (a binomial count of differing seat-hands, then only those) against the model's exact
    law: the mean and variance of a group, and the share of groups that are exactly 0 against k draws of the
    per-hand mixture itself.  Each bound is 4.5 standard errors: a correct draw fails it about once in 10⁵ seeds."""
    n, delta = 10_000, -3.0
    rng = random.Random(5)
    groups = [MODEL.draw(rng, delta) for _ in range(n)]
    hand_mean = sum(v * p for v, p in MODEL.hand.items())
    var_h = sum((v - hand_mean) ** 2 * p for v, p in MODEL.hand.items())
    mu4_h = sum((v - hand_mean) ** 4 * p for v, p in MODEL.hand.items())
    var_g = var_h / MODEL.k
    mu4_g = (mu4_h - 3 * var_h**2) / MODEL.k**3 + 3 * var_g**2  # cumulants of a mean of k: κ4 / k³, κ2 / k
    mean = sum(groups) / n
    variance = sum((x - mean) ** 2 for x in groups) / (n - 1)
    assert hand_mean == pytest.approx(0.0, abs=1e-9) and var_g == pytest.approx(MODEL.sd**2)
    assert abs(mean - delta) <= 4.5 * math.sqrt(var_g / n)
    assert abs(variance - var_g) <= 4.5 * math.sqrt((mu4_g - var_g**2) / n)
    values, cum = list(MODEL.hand), list(accumulate(MODEL.hand.values()))
    direct = sum(sum(rng.choices(values, cum_weights=cum, k=MODEL.k)) == 0 for _ in range(n)) / n
    drawn = sum(x == delta for x in groups) / n
    pooled = (direct + drawn) / 2
    assert abs(direct - drawn) <= 4.5 * math.sqrt(2 * pooled * (1 - pooled) / n), (direct, drawn)
    assert 0.1 < drawn < 0.25  # the docstring's "16 % zeros"


# ------------------------------------------------------------------------------------------------ calibration
@pytest.mark.slow
@pytest.mark.parametrize(
    ("margin_in_sd", "alpha", "beta", "runs"),
    [
        (1.0, 0.05, 0.05, 2000),  # the default run: 16-hand matches, margin 10, group sd ~9
        (0.4, 0.05, 0.05, 2000),  # 4-hand matches or a smaller margin: ~40 groups to a verdict
        (0.2, 0.05, 0.05, 1000),  # a long run: ~140 groups
        (0.4, 0.10, 0.02, 2000),  # asymmetric error rates
    ],
)
def test_wrong_verdicts_stay_within_alpha_and_beta(margin_in_sd: float, alpha: float, beta: float,
                                                   runs: int) -> None:
    settings = SprtSettings(margin=margin_in_sd * MODEL.sd, alpha=alpha, beta=beta)
    rng = random.Random(20240611)
    false_pass = sum(run_to_verdict(rng, MODEL, -settings.margin, settings) == "pass" for _ in range(runs))
    false_regression = sum(run_to_verdict(rng, MODEL, 0.0, settings) == "regression" for _ in range(runs))
    assert false_pass <= binomial_upper(runs, alpha), (false_pass, runs)
    assert false_regression <= binomial_upper(runs, beta), (false_regression, runs)


def test_clear_differences_are_found_quickly() -> None:
    settings = SprtSettings(margin=0.5 * MODEL.sd)
    rng = random.Random(7)
    better = [run_to_verdict(rng, MODEL, settings.margin, settings) for _ in range(300)]
    worse = [run_to_verdict(rng, MODEL, -2 * settings.margin, settings) for _ in range(300)]
    assert better.count("pass") >= 295
    assert worse.count("regression") >= 295


def test_a_huge_difference_is_decided_at_the_end_of_the_burn_in() -> None:
    s = Sprt(SprtSettings(margin=10))
    verdicts = [s.add(x) for x in [150.0, 140.0, 160.0, 155.0, 145.0, 150.0, 152.0, 148.0]]
    assert verdicts[:7] == [None] * 7  # no verdict before min_groups, however clear
    assert verdicts[7] == "pass" and s.decided_at == 8


# ------------------------------------------------------------------------------------------------ the formula
def test_bounds_are_walds() -> None:
    a, b = SprtSettings(alpha=0.05, beta=0.05).bounds
    assert a == pytest.approx(math.log(0.05 / 0.95)) and b == pytest.approx(math.log(0.95 / 0.05))
    a, b = SprtSettings(alpha=0.1, beta=0.02).bounds
    assert a == pytest.approx(math.log(0.02 / 0.9)) and b == pytest.approx(math.log(0.98 / 0.1))


def test_llr_is_the_normal_approximation() -> None:
    # n (mu1 - mu0) (2 mean - mu0 - mu1) / (2 var)
    assert llr(50, -2.0, 400.0, -10.0, 0.0) == pytest.approx(50 * 10 * (-4 + 10) / 800)
    assert llr(50, -5.0, 400.0, -10.0, 0.0) == 0.0  # the midpoint: no evidence either way
    assert llr(50, -20.0, 400.0, -10.0, 0.0) < 0 < llr(50, 10.0, 400.0, -10.0, 0.0)


def test_small_sample_factor_shrinks_to_one() -> None:
    assert small_sample_factor(8) == pytest.approx((2.998 / 2.3263) ** 2, rel=1e-3)
    assert small_sample_factor(30) > small_sample_factor(100) > small_sample_factor(10_000) > 1.0
    assert small_sample_factor(10_000) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize(("p", "df", "table"), [
    (0.975, 1, 12.706), (0.975, 2, 4.303), (0.975, 3, 3.182), (0.975, 7, 2.365), (0.975, 30, 2.042),
    (0.99, 7, 2.998), (0.99, 20, 2.528),
])
def test_t_quantile(p: float, df: int, table: float) -> None:
    assert t_quantile(p, df) == pytest.approx(table, abs=0.005)


def test_pass_probability_is_alpha_and_one_minus_beta_at_the_hypotheses() -> None:
    s = SprtSettings(margin=10, alpha=0.05, beta=0.1)
    assert pass_probability(-10, 8.0, s) == pytest.approx(0.05)
    assert pass_probability(0, 8.0, s) == pytest.approx(0.9)
    assert expected_groups(-5, 8.0, s) > expected_groups(0, 8.0, s) > expected_groups(10, 8.0, s) > 0


def test_expected_groups_matches_simulation_roughly() -> None:
    # The Brownian figure ignores the burn-in and the small-sample factor: a planning figure within ~35 %.
    settings = SprtSettings(margin=0.3 * MODEL.sd)
    rng = random.Random(3)
    lengths = []
    for _ in range(300):
        s = Sprt(settings)
        while s.add(MODEL.draw(rng, 0.0)) is None:
            pass
        lengths.append(s.n)
    simulated = sum(lengths) / len(lengths)
    assert expected_groups(0.0, MODEL.sd, settings) == pytest.approx(simulated, rel=0.35)


# ------------------------------------------------------------------------------------------------ degenerate
def test_identical_bots_zero_variance_is_no_evidence() -> None:
    s = Sprt(SprtSettings())
    for _ in range(500):
        assert s.add(0.0) is None
    assert s.zero_variance and s.variance == 0.0 and s.llr == 0.0
    assert s.verdict() == "inconclusive"
    assert s.ci95() == (0.0, 0.0)


def test_a_constant_nonzero_stream_is_also_no_evidence() -> None:
    s = Sprt(SprtSettings())
    for _ in range(50):
        s.add(-37.5)  # rounding must not invent a variance
    assert s.zero_variance and s.llr == 0.0 and s.mean == -37.5 and s.verdict() == "inconclusive"


def test_variance_appearing_ends_zero_variance() -> None:
    s = Sprt(SprtSettings())
    for _ in range(20):
        s.add(0.0)
    s.add(-4.0)
    assert not s.zero_variance and s.variance > 0 and s.llr != 0.0


def test_one_observation() -> None:
    s = Sprt(SprtSettings())
    s.add(12.0)
    assert s.llr == 0.0 and s.ci95() is None and not s.zero_variance and s.verdict() == "inconclusive"


def test_a_decided_test_keeps_its_verdict() -> None:
    s = Sprt(SprtSettings(margin=10))
    for x in [-100.0, -90.0, -110.0, -95.0, -105.0, -100.0, -98.0, -102.0]:
        s.add(x)
    assert s.state == "regression"
    for _ in range(30):
        assert s.add(200.0) is None
    assert s.verdict() == "regression" and s.decided_at == 8


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"margin": 0}, "--margin must be a number of points per hand, 0.1 or more, not 0"),
    ({"margin": math.nan}, "--margin must be a number of points per hand, 0.1 or more"),
    ({"alpha": 0.5}, "--alpha must be from 1e-06 to 0.5 (exclusive), not 0.5"),
    ({"beta": 0.0}, "--beta must be from 1e-06 to 0.5 (exclusive), not 0.0"),
    ({"min_groups": 1}, "min_groups must be at least 2"),
])
def test_bad_settings(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(SprtError) as exc:
        SprtSettings(**kwargs)  # type: ignore[arg-type]
    assert message in str(exc.value)


def test_a_non_finite_difference_is_refused() -> None:
    with pytest.raises(SprtError, match="finite"):
        Sprt().add(math.inf)


# ------------------------------------------------------------------------------------------------ heavy tails
# The audit's heavy-tailed regressions, on 1v3 groups of 16-hand matches (64 candidate seat-hands, group SD 9.6):
# a loss of 2,560 points in one seat-hand as a Poisson event, often enough to cost the margin; a few groups losing
# 100 or 200 points per hand; the real differences, resampled; a light (normal) model.  Each at the hypotheses'
# boundaries: mean -margin (a pass is false) and mean 0 (a regression is false), at the default margin and at 5.
# The bound of the betting test: the default (5,120 points in a group: 80 per hand) for the per-hand models, a
# bound above the group's loss for the group models (what docs/regression.md tells a user to set).
SEAT_HANDS, GROUP_SD = 64, 9.6
DEFAULT_BOUND = DEFAULT_TAIL_LOSS / SEAT_HANDS
DATA = Path(__file__).resolve().parents[1] / "data" / "regress_groups.json"


def poisson_model(mean: float, margin: float, event: float = 2560.0) -> Callable[[random.Random], float]:
    w = event / SEAT_HANDS
    return poisson_loss_groups(mean, GROUP_SD, w, margin / w)  # events often enough to cost the margin


def group_model(mean: float, share: float, loss: float) -> Callable[[random.Random], float]:
    return rare_loss_groups(mean, GROUP_SD, share, loss)


def empirical_model(mean: float) -> Callable[[random.Random], float]:
    """The real group differences (bench/regress.py --save-groups: greedy:chowness=0.9 against greedy, 200 groups
    of 16-hand matches), resampled and shifted to the given mean."""
    return resampled_groups(json.loads(DATA.read_text())["differences"], mean)


# name: (the bound, the model at (mean, margin), runs).  Runs are fewer where a run is long (thousands of hands):
# each test stays a few seconds of CPU; the tolerance below widens with fewer runs, as it must.
MODELS: dict[str, tuple[float, Callable[[float, float], Callable[[random.Random], float]], int]] = {
    "light": (DEFAULT_BOUND, lambda mean, margin: normal_groups(mean, GROUP_SD), 500),
    "empirical": (DEFAULT_BOUND, lambda mean, margin: empirical_model(mean), 500),
    "poisson": (DEFAULT_BOUND, poisson_model, 400),
    "10% of groups lose 100": (130.0, lambda mean, margin: group_model(mean, 0.1, 100.0), 200),
    "5% of groups lose 200": (240.0, lambda mean, margin: group_model(mean, 0.05, 200.0), 150),
    # right-skewed equal bots (issue 34: many small losses, rare big wins), 2,000 runs each: the LLR called them a
    # regression 14-23 % of the time; 40·(Exp−1) and the lognormal gain more than the default bound in 5 % and 1.1 %
    # of groups, so their bounds are raised to cover them (docs/regression.md shows them at the default bound too:
    # outside the guarantee, 6.5-8.2 % at margin 5)
    "20·(Exp−1)": (DEFAULT_BOUND, lambda mean, margin: exponential_groups(mean, 20.0), 2000),
    "40·(Exp−1), bound 200": (200.0, lambda mean, margin: exponential_groups(mean, 40.0), 2000),
    "−12/+48 80/20": (DEFAULT_BOUND, lambda mean, margin: two_point_groups(mean, -12.0, 48.0, 0.2), 2000),
    "lognormal wins, bound 240": (240.0, lambda mean, margin: lognormal_groups(mean, 10.0, 1.0), 2000),
    "5% of groups win 2,000-5,000": (
        DEFAULT_BOUND, lambda mean, margin: jackpot_groups(mean, GROUP_SD, 0.05, 2000 / SEAT_HANDS,
                                                           5000 / SEAT_HANDS), 2000),
}


@pytest.mark.slow
@pytest.mark.parametrize("margin", [10.0, 5.0])
@pytest.mark.parametrize("model", list(MODELS))
def test_heavy_tails_stay_within_alpha_and_beta(margin: float, model: str) -> None:
    """With N runs and a true rate of exactly alpha, more than ``binomial_upper(N, alpha)`` wrong verdicts happen
    with probability <= 0.1 %; the betting tests' alpha and beta are theorems for every distribution within the
    bound, so this checks the implementation (the LLR's regression side failed it for the skewed models)."""
    bound, make, runs = MODELS[model]
    settings = SprtSettings(margin=margin, tail=bound)
    false_pass = simulate(settings, make(-margin, margin), runs=runs, seed=11).passed
    false_regression = simulate(settings, make(0.0, margin), runs=runs, seed=12).failed
    assert false_pass * runs <= binomial_upper(runs, settings.alpha), false_pass
    assert false_regression * runs <= binomial_upper(runs, settings.beta), false_regression


@pytest.mark.slow
def test_without_a_bound_a_skewed_equal_bot_is_called_a_regression() -> None:
    """What the regression's betting test is for: an equal bot whose groups are 20·(Exp−1) (many small losses,
    rare big wins).  The normal approximation alone calls it a regression far more often than beta; the betting
    test keeps beta (the calibration above)."""
    runs = 1000
    bare = simulate(SprtSettings(margin=10.0), exponential_groups(0.0, 20.0), runs=runs, seed=5)
    assert bare.failed * runs > binomial_upper(runs, 0.05), bare.failed
    bounded = simulate(SprtSettings(margin=10.0, tail=DEFAULT_BOUND), exponential_groups(0.0, 20.0), runs=runs, seed=5)
    assert bounded.failed * runs <= binomial_upper(runs, 0.05), bounded.failed


@pytest.mark.slow
def test_a_bound_below_the_losses_loses_alpha() -> None:
    """What the bound is for: 10 % of groups losing 100 points per hand, at margin 10.  The normal approximation
    alone (no bound) passes that regression far more often than alpha; a bound of one swing clipped below the
    losses still passes it too often; a bound above them keeps alpha."""
    margin, runs = 10.0, 150
    regression = group_model(-margin, 0.1, 100.0)
    bare = simulate(SprtSettings(margin=margin), regression, runs=runs, seed=5)
    assert bare.passed > 0.2
    low = simulate(SprtSettings(margin=margin, tail=40.0), regression, runs=runs, seed=5)
    assert low.passed * runs > binomial_upper(runs, 0.05)
    high = simulate(SprtSettings(margin=margin, tail=130.0), regression, runs=runs, seed=5)
    assert high.passed * runs <= binomial_upper(runs, 0.05)


def test_the_worst_two_point_equal_bot_keeps_beta() -> None:
    """The mirror image for the regression: groups at exactly +B or a small loss, with the mean exactly 0 (the
    shape of a bot that plays for big hands, at its most extreme): most groups look like a regression."""
    margin, bound, runs = 5.0, 80.0, 400
    loss = 7.0
    p = loss / (loss + bound)  # P(+bound): p·bound − (1−p)·loss = 0

    def draw(rng: random.Random) -> float:
        return bound if rng.random() < p else -loss + rng.gauss(0.0, 1.0)

    r = simulate(SprtSettings(margin=margin, tail=bound), draw, runs=runs, seed=3, max_groups=400)
    assert r.failed * runs <= binomial_upper(runs, 0.05), r.failed
    bare = simulate(SprtSettings(margin=margin), draw, runs=runs, seed=3, max_groups=400)
    assert bare.failed > 0.5  # the normal approximation calls most such equal bots a regression


def test_the_worst_two_point_regression_keeps_alpha() -> None:
    """The least favourable case for a bounded test: groups at exactly -B (the bound) or a small gain, with the
    mean exactly -margin: most groups look better than an equal bot's.  Ville's inequality still holds."""
    margin, bound, runs = 5.0, 80.0, 400
    gain = 2.0
    p = (gain + margin) / (gain + bound)  # P(-bound): p·(-bound) + (1-p)·gain = -margin

    def draw(rng: random.Random) -> float:
        return -bound if rng.random() < p else gain + rng.gauss(0.0, 1.0)

    r = simulate(SprtSettings(margin=margin, tail=bound), draw, runs=runs, seed=3, max_groups=400)
    assert r.passed * runs <= binomial_upper(runs, 0.05), r.passed


def test_both_verdicts_are_betting_tests() -> None:
    clear = [150.0, 140.0, 160.0, 155.0, 145.0, 150.0, 152.0, 148.0]
    s = Sprt(SprtSettings(margin=10, tail=200.0))
    for x in clear:  # a clear pass is decided at the burn-in
        s.add(x)
    assert s.state == "pass" and s.decided_at == 8 and s.evidence >= s.settings.evidence_bound
    assert s.regression_evidence < 0  # the regression's bettor lost on every group it staked
    s = Sprt(SprtSettings(margin=10, tail=200.0))
    assert [s.add(-x) for x in clear][-1] == "regression"  # a clear regression too, by its own betting test
    assert s.regression_evidence >= s.settings.regression_bound and s.evidence < 0
    s = Sprt(SprtSettings(margin=10, tail=80.0))
    for x in [2.0, -1.0, 3.0, 0.5, 1.0, -2.0, 2.5, 1.5]:  # the LLR says pass, eight close groups are too few
        s.add(x)
    assert s.llr >= s.settings.bounds[1] and s.state is None and s.held == "tail"
    assert 0 < s.evidence < s.settings.evidence_bound
    s = Sprt(SprtSettings(margin=10, tail=80.0))
    for x in [-12.0, -9.0, -13.0, -10.5, -11.0, -8.0, -12.5, -11.5]:  # the LLR says regression: held the same way
        s.add(x)
    assert s.llr <= s.settings.bounds[0] and s.state is None and s.held == "tail"
    assert 0 < s.regression_evidence < s.settings.regression_bound
    s = Sprt(SprtSettings(margin=10))  # no bound: the LLR decides both ways, as in fishtest
    assert [s.add(-x) for x in clear][-1] == "regression" and s.regression_evidence == 0.0


def test_stakes_are_fixed_before_the_group_and_keep_the_factor_positive() -> None:
    s = Sprt(SprtSettings(margin=10, tail=80.0))
    assert s.stake == 0.0
    s.add(5.0)
    s.add(-3.0)
    stake = s.stake
    assert 0 < stake <= s.settings.max_stake < 1 / 70
    before = s.evidence
    s.add(-1e6)  # far below the bound: counted as -B, the wealth keeps 0.1 % at worst
    assert s.evidence - before == pytest.approx(math.log1p(stake * (-80.0 + 10)))
    assert math.isfinite(s.evidence)
    s = Sprt(SprtSettings(margin=10, tail=80.0))  # the regression's wealth, the mirror image
    for x in (-15.0, -4.0, -12.0):
        s.add(x)
    stake = s.regression_stake
    assert 0 < stake <= s.settings.max_regression_stake < 1 / 80
    before = s.regression_evidence
    s.add(1e6)  # far above the bound: counted as +B
    assert s.regression_evidence - before == pytest.approx(math.log1p(-stake * 80.0))
    assert math.isfinite(s.regression_evidence)
    # and the gain bound widens to it: the stake shrinks so that such a group again keeps 0.1 % of the wealth
    assert (s.gain_bound, s.loss_bound, s.beyond) == (1e6, 80.0, 1)
    assert 0 <= s.regression_stake <= 0.999 / 1e6 and s.stake <= s.settings.max_stake


def test_groups_within_the_bound_never_move_it() -> None:
    s = Sprt(SprtSettings(margin=10, tail=80.0))
    for x in (80.0, -80.0, 79.9, -3.0, 12.0) * 4:
        s.add(x)
    assert (s.loss_bound, s.gain_bound, s.beyond) == (80.0, 80.0, 0)


def test_best_stake() -> None:
    assert best_stake([-1.0, -2.0], 0.5) == 0.0  # no edge: no stake
    assert best_stake([5.0, 6.0], 0.1) == 0.1  # all gains: the largest stake
    # +3 or -1, equally often: maximise log(1 + 3λ) + log(1 - λ); 3 / (1 + 3λ) = 1 / (1 - λ) at λ = 1/3
    assert best_stake([3.0, -1.0], 0.9) == pytest.approx(1 / 3, abs=1e-7)
    assert best_stake([3.0, -1.0], 0.2) == 0.2  # the optimum beyond the cap: the cap


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"margin": 10, "tail": 10.0}, "the tail bound (10 points per hand of a group) must exceed the margin (10)"),
    ({"margin": 10, "tail": -1.0}, "the tail loss must be a number of points, 0 or more"),
])
def test_bad_bounds(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(SprtError) as exc:
        SprtSettings(**kwargs)  # type: ignore[arg-type]
    assert message in str(exc.value)


def test_fault_excess_p() -> None:
    assert fault_excess_p(0, 64, 5, 192) == 1.0
    assert fault_excess_p(6, 64, 0, 192) == pytest.approx(0.25 ** 6)
    assert fault_excess_p(2, 64, 6, 192) > 0.3  # the candidate's fair share of the faults
    assert fault_excess_p(3, 64, 0, 0) == 0.0


def test_simulate_counts_burn_in_and_overshoot() -> None:
    # a huge difference is decided at the burn-in, never before
    r = simulate(SprtSettings(margin=10), normal_groups(100.0, 5.0), runs=50)
    assert r.passed == 1.0 and r.mean_groups == 8 and r.p95_groups == 8
    # an equal bot takes longer than the Brownian figure, which leaves burn-in and inflation out
    s = SprtSettings(margin=10)
    assert simulate(s, normal_groups(0.0, 9.6), runs=300).mean_groups > expected_groups(0.0, 9.6, s)


# ------------------------------------------------------------------------------------------------ pinned numbers
def _pin_stream(seed: int, n: int, mean: float, loss: float) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(mean, 9.6) - (loss if rng.random() < 0.04 else 0.0) for _ in range(n)]


# (group, llr, evidence, stake, mean, variance, held) after that many groups: computed with the implementation of
# 2026-11-23 (before the statistics were made faster), which every change since must reproduce
PINNED_LLR = [
    (2, -0.004521275566238231, 0.0, 0.0, -11.817686818517116, 110.14936893128488, None),
    (3, -0.0947379269667533, 0.0, 0.0, -8.04048872969908, 97.87636067215433, None),
    (8, -0.9828886709435574, 0.0, 0.0, -5.824130239629349, 81.45800785506552, None),
    (17, -1.6753891837855908, 0.0, 0.0, -6.561912578521209, 167.09770437069184, None),
    (50, -1.7714043191764441, 0.0, 0.0, -10.704056619918449, 1083.450828991852, None),
    (123, -4.109931838737451, 0.0, 0.0, -12.13752330890875, 1404.5098165749, 'burn-in'),
    (300, -8.707074383178504, 0.0, 0.0, -10.731026595726073, 1402.8298155895718, 'burn-in'),
]
PINNED_BET = [
    (2, -0.0016098605416939012, 0.0, 0.000784313725487351, -5.8176868185171156, 110.14936893128488, None),
    (3, 0.007857275285628653, 0.008212387761935034, 0.007890068899885012,
     -2.0404887296990792, 97.87636067215433, None),
    (8, 0.7912090931437236, 0.4311035650474546, 0.01332, 0.17586976037065205, 81.45800785506553, None),
    (17, 0.7993896078281932, 0.6877295236773702, 0.01332, -0.5619125785212076, 167.09770437069182, None),
    (50, 1.7022178400690195, 0.8080153607264449, 0.01097735761977353, -0.7040566199184447, 246.81739223267084, None),
    (123, 4.75528281630268, 2.683043751062486, 0.011133725737531408,
     -0.44646639833964724, 258.65413109193634, 'burn-in'),
    (300, 16.732005040622777, 9.73900003547102, 0.010406577069356654,
     0.6023067376072655, 275.1439619819985, 'burn-in'),
]
# simulate(..., runs=30, seed=4, budget=50): (model, passed, failed, undecided, mean_groups, p95_groups, within,
# capped).  The bounded models' rows changed on 2026-11-27, when the regression became a betting test too and a group
# beyond the bound widened it (issue 34); the normal row (no bound: the LLR decides both ways) is the one computed
# before.
PINNED_SIMULATIONS = [
    ('normal', 0.7, 0.3, 0.0, 36.13333333333333, 75, (0.5, 0.23333333333333334), 0.0),
    ('poisson', 0.6, 0.4, 0.0, 122.53333333333333, 215, (0.06666666666666667, 0.0), 0.0),
    ('rare', 0.4666666666666667, 0.5333333333333333, 0.0, 143.43333333333334, 304, (0.06666666666666667, 0.0), 0.0),
    ('resampled', 0.7, 0.3, 0.0, 54.3, 90, (0.3333333333333333, 0.16666666666666666), 0.0),
]


@pytest.mark.parametrize(("settings", "mean", "loss", "pinned"), [
    (SprtSettings(margin=5.0, min_groups=400), -2.0, 160.0, PINNED_LLR),
    (SprtSettings(margin=5.0, tail=80.0, min_groups=400), 4.0, 60.0, PINNED_BET),
], ids=["llr", "betting"])
def test_the_statistics_are_pinned_on_a_fixed_stream(settings: SprtSettings, mean: float, loss: float,
                                                      pinned: list[tuple[object, ...]]) -> None:
    """Speed-ups of ``Sprt`` must not change a number: the LLR, the betting test's wealth and stake, the estimates
    and the hold, group by group (a burn-in of 400 keeps the run going), as the implementation computed them."""
    s = Sprt(settings)
    at = {row[0]: row for row in pinned}
    for i, x in enumerate(_pin_stream(17, 300, mean, loss), 1):
        s.add(x)
        if i in at:
            _, llr_, evidence, stake, mean_, variance, held = at[i]
            assert (s.llr, s.evidence, s.stake, s.mean, s.variance) == pytest.approx(
                (llr_, evidence, stake, mean_, variance), rel=1e-12, abs=1e-15), i
            assert s.held == held, i


def test_simulations_are_pinned() -> None:
    """The verdicts of whole simulated runs on each model factory, as the implementation computed them."""
    models = {
        "normal": (SprtSettings(margin=5.0), normal_groups(-2.0, 9.6)),
        "poisson": (SprtSettings(margin=5.0, tail=80.0), poisson_loss_groups(-2.0, 9.6, 40.0, 0.1)),
        "rare": (SprtSettings(margin=10.0, tail=130.0), rare_loss_groups(-4.0, 9.6, 0.1, 100.0)),
        "resampled": (SprtSettings(margin=10.0, tail=80.0),
                      resampled_groups([3.0, -7.5, 12.0, 0.0, -1.25, 40.0, -33.0], -4.0)),
    }
    pinned = {row[0]: row[1:] for row in PINNED_SIMULATIONS}
    for name, (settings, draw) in models.items():
        r = simulate(settings, draw, runs=30, seed=4, budget=50)
        assert (r.passed, r.failed, r.undecided, r.mean_groups, r.p95_groups, r.within, r.capped) == pinned[name]
