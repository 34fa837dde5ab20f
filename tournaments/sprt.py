"""The sequential test behind ``mjref regress``: "weaker", "not weaker" or "not sure yet", as early as possible.

A regression run produces a stream of numbers, one per *duplicate group* (a seed played in every seating): the
candidate's points minus the baseline's points in the same seats on the same walls, per hand.  This module decides,
after each group, whether that stream already shows

* **H0, a regression**: the mean difference is ``-margin`` or worse (the candidate loses ``margin`` points per hand
  or more against the baseline), or
* **H1, no regression**: the mean difference is ``0`` or better,

with error rates ``alpha`` (a regression of ``margin`` passes) and ``beta`` (an equal bot is called a regression).
Between ``-margin`` and ``0`` either verdict is acceptable: that is the indifference zone the margin buys.

The statistic is the one fishtest uses when it approximates the *generalized* SPRT of a distribution it does not
model (its pentanomial and normalized tests; ``LLRcalc.LLR_alt2`` and ``LLR_drift_variance_alt2``, after the note
"GSPRT approximation"): the sample mean behaves like a Brownian motion, so for ``n`` observations with mean ``x̄``
and variance ``σ²``, testing ``μ0`` against ``μ1``,

    LLR ≈ n · (μ1 − μ0) · (2·x̄ − μ0 − μ1) / (2·σ²)

the log-likelihood ratio of two normal laws with the observed variance.  Wald's bounds are ``a = ln(β / (1 − α))``
and ``b = ln((1 − β) / α)``: at or below ``a`` the run is a regression, at or above ``b`` it passes.

fishtest sees tens of thousands of game pairs; we stop after tens of groups, where a variance estimated from few
groups is often too small by chance and the LLR leaps over a bound on no real evidence (measured with the bare
formula: 6-8 % wrong verdicts at α = β = 5 % when a verdict takes 20-80 groups, even after an 8-group burn-in;
12-14 % with no burn-in).  Three guards, calibrated by ``tests/tournaments/test_sprt.py``:

* **small-sample variance**: the unbiased sample variance is multiplied by ``(t(0.99, n−1) / z(0.99))²``
  (Student's t against the normal quantile: 1.66 at 8 groups, 1.12 at 30, → 1), so that few groups count as the
  weaker evidence they are;
* **a burn-in** (``min_groups``, default 8): no verdict before that many groups;
* **zero variance** (two bots that play identically: every group's difference is the same number, usually 0): the
  LLR is 0, *no evidence*, until a variance appears, and the result says so (``zero_variance``).  Never a
  division by zero, never a verdict from a degenerate stream.  (``mjref regress`` recognises identical play
  directly, answer by answer, and stops with its own verdict: see ``tournaments.regress``.)

One more guard is for heavy tails.  A regression can come as rare, very large losses (a bot that, once in a few
hundred hands, deals in a huge hand it used to avoid): until one of them is drawn, the stream looks like an equal
bot's, and when one is drawn the sample mean of a short run still underestimates how often they come.  With the
bare test, losses of 2,560 points in one seat-hand, often enough to cost the margin, passed 16 % of the time at
α = 5 %.  The **tail guard**: a pass must survive one more tail loss, i.e. the LLR of the groups so far *plus one
more group whose difference is* ``−tail`` must also reach ``b`` (``SprtSettings.tail``, in the groups' units;
0 turns the guard off).  This is the Poisson-event argument made operational: a pass is only declared once the
run is long, and its mean high enough, that the loss that would reveal a hidden regression no longer matters.  It
costs passes only (a regression is never delayed); ``tests/tournaments/test_sprt.py`` and docs/regression.md show
its error rates under the heavy-tailed models and its cost.

``held`` says why an LLR already past a bound is not a verdict yet (``burn-in`` or ``tail``), so that a user sees
the run keep playing for a reason.

Everything here is pure and synchronous: the regression runner feeds it, the tests simulate it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Literal

from referee.errors import InputError

from .stats import t_quantile

Verdict = Literal["pass", "regression", "inconclusive"]
Hold = Literal["burn-in", "tail"]

DEFAULT_MARGIN = 10.0
"""Points per hand (default scoring: base 100 + 20 per tai); see docs/regression.md for why 10."""
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
DEFAULT_MIN_GROUPS = 8
"""No verdict before this many groups (see the module docstring and the calibration tests)."""


class SprtError(InputError):
    """Settings that do not make a test (margin not positive, alpha outside (0, 0.5)…); the message says which."""


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """H0: mean ≤ −margin (a regression) against H1: mean ≥ 0 (no regression), in points per hand."""

    margin: float = DEFAULT_MARGIN
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    min_groups: int = DEFAULT_MIN_GROUPS
    tail: float = 0.0
    """The tail guard: the group difference of one tail loss; a pass must survive one more (0: no guard)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin > 0):
            raise SprtError(f"the margin must be a positive number of points per hand, not {self.margin!r}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5 (exclusive), not {value!r}")
        if self.min_groups < 2:
            raise SprtError(f"min_groups must be at least 2 (a variance needs two groups), not {self.min_groups!r}")
        if not (math.isfinite(self.tail) and self.tail >= 0):
            raise SprtError(f"the tail loss must be a number of points, 0 or more, not {self.tail!r}")

    @property
    def mu0(self) -> float:
        """The mean under H0 (a regression of exactly ``margin``)."""
        return -self.margin

    @property
    def mu1(self) -> float:
        """The mean under H1 (no difference)."""
        return 0.0

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds ``(a, b)``: the LLR at or below ``a`` accepts H0, at or above ``b`` accepts H1."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)


def llr(n: int, mean: float, variance: float, mu0: float, mu1: float) -> float:
    """The approximate generalized log-likelihood ratio of H1 (mean ``mu1``) over H0 (mean ``mu0``) for ``n``
    observations with this ``mean`` and ``variance``: ``n·(mu1 − mu0)·(2·mean − mu0 − mu1) / (2·variance)``
    (fishtest ``LLR_alt2``).  0 without a variance: no evidence, never a division by zero."""
    if n < 2 or not variance > 0 or not math.isfinite(variance):
        return 0.0
    return n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * variance)


_Z99 = NormalDist().inv_cdf(0.99)
# Student's t quantile: the exact one of the standings (one implementation for the project).


@lru_cache(maxsize=4096)
def small_sample_factor(n: int) -> float:
    """How much the sample variance of ``n`` observations is inflated before it enters the LLR:
    ``(t(0.99, n − 1) / z(0.99))²``, 1.66 at 8 groups, 1.12 at 30, 1.03 at 100, → 1."""
    return (t_quantile(0.99, n - 1) / _Z99) ** 2 if n >= 2 else math.inf


@dataclass(slots=True)
class Sprt:
    """A running SPRT: ``add`` one group's difference at a time, read ``llr``, ``state`` and the estimates."""

    settings: SprtSettings = field(default_factory=SprtSettings)
    n: int = 0
    mean: float = 0.0
    _m2: float = 0.0  # Welford's sum of squared deviations: exact 0 for a constant stream
    first: float | None = None
    constant: bool = True  # every value so far equal to the first
    decided_at: int | None = None
    _state: Verdict | None = None
    held: Hold | None = None  # why the LLR, past a bound now, is not a verdict yet
    last_hold: tuple[Hold, int] | None = None  # the last hold and the group it began at (kept after a verdict)
    _bounds: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        self._bounds = self.settings.bounds

    def add(self, x: float) -> Verdict | None:
        """Add one observation; return the verdict if this one decides the test (and keep it), else None."""
        if not math.isfinite(x):
            raise SprtError(f"a group difference must be a finite number, not {x!r}")
        self.n += 1
        if self.first is None:
            self.first = x
        elif x != self.first:
            self.constant = False
        delta = x - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (x - self.mean)
        if self.constant:  # exactly: rounding must not invent a variance
            self.mean, self._m2 = x, 0.0
        if self._state is not None:
            return None
        value = self.llr
        a, b = self._bounds
        hold: Hold | None = None
        verdict: Verdict | None = None
        if value >= b or value <= a:
            if self.n < self.settings.min_groups:
                hold = "burn-in"
            elif value <= a:
                verdict = "regression"
            elif self.tail_llr >= b:
                verdict = "pass"
            else:
                hold = "tail"
        if hold is not None and hold != self.held:
            self.last_hold = (hold, self.n)
        self.held = hold
        if verdict is not None:
            self._state, self.decided_at = verdict, self.n
        return verdict

    @property
    def variance(self) -> float:
        """The unbiased sample variance (0 for fewer than two observations)."""
        return self._m2 / (self.n - 1) if self.n >= 2 and self._m2 > 0 else 0.0

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def zero_variance(self) -> bool:
        """At least two observations, all equal: the two bots played identically so far."""
        return self.n >= 2 and self.constant

    @property
    def llr(self) -> float:
        if self.n < 2:
            return 0.0
        s = self.settings
        return llr(self.n, self.mean, self.variance * small_sample_factor(self.n), s.mu0, s.mu1)

    @property
    def tail_llr(self) -> float:
        """The LLR with one more group at ``−tail`` (the tail guard's figure; the LLR itself without a guard)."""
        s = self.settings
        if not s.tail > 0:
            return self.llr
        n = self.n + 1
        delta = -s.tail - self.mean
        mean = self.mean + delta / n
        m2 = self._m2 + delta * (-s.tail - mean)
        return llr(n, mean, m2 / (n - 1) * small_sample_factor(n), s.mu0, s.mu1)

    @property
    def state(self) -> Verdict | None:
        """``pass`` or ``regression`` once a bound was reached (it stays), else None."""
        return self._state

    def verdict(self) -> Verdict:
        """The verdict now: the decided one, else ``inconclusive``."""
        return self._state or "inconclusive"

    def ci95(self) -> tuple[float, float] | None:
        """The 95 % confidence interval of the mean difference (Student's t); None before two observations."""
        if self.n < 2:
            return None
        half = t_quantile(0.975, self.n - 1) * self.sd / math.sqrt(self.n)
        return self.mean - half, self.mean + half


# -------------------------------------------------------------------------------------------- faults
def fault_excess_p(candidate_faults: int, candidate_hands: int, baseline_faults: int, baseline_hands: int) -> float:
    """How surprising the candidate's share of all faults is if both fault at the same rate per seat-hand: the
    one-sided exact binomial tail P(X ≥ candidate_faults), X ~ Binomial(all faults, the candidate's share of the
    seat-hands).  1.0 when there is nothing to test."""
    total = candidate_faults + baseline_faults
    if candidate_faults <= 0 or candidate_hands <= 0:
        return 1.0
    if baseline_hands <= 0:
        return 0.0
    share = candidate_hands / (candidate_hands + baseline_hands)
    log_p, log_q = math.log(share), math.log1p(-share)
    tail = 0.0
    for k in range(candidate_faults, total + 1):
        tail += math.exp(math.lgamma(total + 1) - math.lgamma(k + 1) - math.lgamma(total - k + 1)
                         + k * log_p + (total - k) * log_q)
    return min(1.0, tail)


# -------------------------------------------------------------------------------------------- planning figures
@dataclass(frozen=True, slots=True)
class Simulated:
    """What many simulated runs of the test did: how they ended, and how many groups they took."""

    runs: int
    passed: float  # the fraction of runs that ended in pass
    failed: float  # ... in regression
    undecided: float  # ... undecided after max_groups
    mean_groups: float  # groups to the end of a run (a verdict, or max_groups)
    p95_groups: int | None  # the groups by which 95 % of the runs were decided (None: fewer were, by max_groups)


def simulate(settings: SprtSettings, draw: Callable[[random.Random], float], *, runs: int = 1000,
             max_groups: int = 20_000, seed: int = 1) -> Simulated:
    """Run the test ``runs`` times on groups from ``draw`` (seeded: the same figures every time).  What the
    planning figures and the calibration tests come from: the real test, burn-in, small-sample factor, tail guard
    and overshoot included, which the Brownian formulas below leave out."""
    rng = random.Random(seed)
    lengths: list[int] = []
    passed = failed = 0
    for _ in range(runs):
        s = Sprt(settings)
        verdict = None
        while verdict is None and s.n < max_groups:
            verdict = s.add(draw(rng))
        passed += verdict == "pass"
        failed += verdict == "regression"
        lengths.append(s.n if verdict is not None else max_groups + 1)
    lengths.sort()
    p95 = lengths[math.ceil(0.95 * runs) - 1]
    return Simulated(runs, passed / runs, failed / runs, (runs - passed - failed) / runs,
                     sum(min(n, max_groups) for n in lengths) / runs, p95 if p95 <= max_groups else None)


def normal_groups(mean: float, sd: float) -> Callable[[random.Random], float]:
    """Group differences drawn from a normal law (what ``simulate`` uses for planning)."""
    return lambda rng: rng.gauss(mean, sd)


def _poisson(rng: random.Random, lam: float) -> int:
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def poisson_loss_groups(mean: float, sd: float, event: float, rate: float) -> Callable[[random.Random], float]:
    """A heavy-tailed model: normal groups, minus ``event`` (a group difference) once per Poisson event, ``rate``
    events per group; the overall mean is ``mean``."""
    return lambda rng: rng.gauss(mean + event * rate, sd) - event * _poisson(rng, rate)


def rare_loss_groups(mean: float, sd: float, share: float, loss: float) -> Callable[[random.Random], float]:
    """A heavy-tailed model: a ``share`` of the groups lose ``loss`` (their mean difference is ``-loss``), the
    others make up the overall ``mean``."""
    rest = (mean + share * loss) / (1 - share)
    return lambda rng: rng.gauss(-loss, sd) if rng.random() < share else rng.gauss(rest, sd)


def llr_drift(mean: float, sd: float, settings: SprtSettings) -> tuple[float, float]:
    """Drift and variance per observation of the LLR when the true mean is ``mean`` and the spread ``sd``
    (the Brownian approximation, as fishtest's ``LLR_drift_variance_alt2``)."""
    var = sd * sd
    if not var > 0:
        raise SprtError("the spread (sd) must be positive")
    d = settings.mu1 - settings.mu0
    return (mean - (settings.mu0 + settings.mu1) / 2) * d / var, d * d / var


def pass_probability(mean: float, sd: float, settings: SprtSettings) -> float:
    """The probability that the test ends in ``pass`` (Brownian approximation, no truncation)."""
    mu, var = llr_drift(mean, sd, settings)
    a, b = settings.bounds
    gamma = 2 * mu / var
    if abs(gamma * (b - a)) < 1e-9:
        return -a / (b - a)
    return _p_upper(gamma, a, b)


def _p_upper(gamma: float, a: float, b: float) -> float:
    # P(hit b before a) for a Brownian motion from 0 with 2·drift/variance = γ (scale function e^(−γx)):
    # with u = −γ, P = (1 − e^(u·a)) / (e^(u·b) − e^(u·a)); divide by the larger exponential so nothing overflows.
    u = -gamma
    if u > 0:  # e^(u·b) dominates
        num = math.exp(-u * b) - math.exp(u * (a - b))
        den = 1 - math.exp(u * (a - b))
    else:  # e^(u·a) dominates (a < 0, u < 0)
        num = math.exp(-u * a) - 1
        den = math.exp(u * (b - a)) - 1
    p = num / den
    return min(1.0, max(0.0, p))


def expected_groups(mean: float, sd: float, settings: SprtSettings) -> float:
    """The expected number of groups to a verdict (Brownian approximation, no truncation, no burn-in)."""
    mu, var = llr_drift(mean, sd, settings)
    a, b = settings.bounds
    if abs(mu) * (b - a) / var < 1e-9:
        return -a * b / var
    p = pass_probability(mean, sd, settings)
    return (p * b + (1 - p) * a) / mu


__all__ = [
    "Hold",
    "Simulated",
    "fault_excess_p",
    "normal_groups",
    "poisson_loss_groups",
    "rare_loss_groups",
    "simulate",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_MARGIN",
    "DEFAULT_MIN_GROUPS",
    "Sprt",
    "SprtError",
    "SprtSettings",
    "Verdict",
    "expected_groups",
    "llr",
    "llr_drift",
    "pass_probability",
    "small_sample_factor",
    "t_quantile",
]
