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
12-14 % with no burn-in).  Three guards, calibrated by ``tests/test_sprt.py``:

* **small-sample variance**: the unbiased sample variance is multiplied by ``(t(0.99, n−1) / z(0.99))²``
  (Student's t against the normal quantile: 1.66 at 8 groups, 1.12 at 30, → 1), so that few groups count as the
  weaker evidence they are;
* **a burn-in** (``min_groups``, default 8): no verdict before that many groups;
* **zero variance** (two bots that play identically: every group's difference is the same number, usually 0): the
  LLR is 0, *no evidence*, until a variance appears, and the result says so (``zero_variance``).  Never a
  division by zero, never a verdict from a degenerate stream.

Everything here is pure and synchronous: the regression runner feeds it, the tests simulate it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

from referee.errors import InputError

from .stats import t_quantile

Verdict = Literal["pass", "regression", "inconclusive"]

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

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin > 0):
            raise SprtError(f"the margin must be a positive number of points per hand, not {self.margin!r}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5 (exclusive), not {value!r}")
        if self.min_groups < 2:
            raise SprtError(f"min_groups must be at least 2 (a variance needs two groups), not {self.min_groups!r}")

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
        if self._state is None and self.n >= self.settings.min_groups:
            value = self.llr
            a, b = self.settings.bounds
            if value >= b:
                self._state, self.decided_at = "pass", self.n
                return "pass"
            if value <= a:
                self._state, self.decided_at = "regression", self.n
                return "regression"
        return None

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


# -------------------------------------------------------------------------------------------- planning figures
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
