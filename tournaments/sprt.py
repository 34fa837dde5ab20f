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

**Heavy tails and skew: both verdicts are bounded betting tests.**  A regression can come as rare, very large
losses (a bot that, once in a few hundred hands, deals in a huge hand it used to avoid, or loses whole deals), and
an equal bot can come as many small losses and rare big wins (a bot that plays for bigger hands).  Until the rare
groups are drawn the stream looks like a worse or a better bot's, and the normal approximation fails twice over:
the sample mean of a short run misses how often they come, and the sample variance shrinks exactly when few are
drawn, so the LLR leaps over a bound (measured: 14-17 % false passes at alpha = 5 % with losses of 2,560 points
in a seat-hand; 14-23 % false regressions at beta = 5 % for right-skewed equal bots such as ``20·(Exp − 1)``).
So with a *bound* ``B`` (``SprtSettings.tail``, points per hand: the largest loss *and* the largest gain of one
group the guarantees cover) both verdicts come from tests whose error rates do not rest on any model of the
differences: **testing by betting** (Shafer 2021; Waudby-Smith and Ramdas 2023, "Estimating means of bounded
random variables by betting").  Each group's difference ``x`` is clipped to ``[−B, B]``; before each group two
stakes are fixed from the groups before it:

* the **pass** wealth is multiplied by ``1 + λ·(x + margin)``, ``0 ≤ λ < 1/(B − margin)``: positive for every
  ``x ≥ −B``, and if the mean difference is ``−margin`` or worse (H0) its expectation is at most 1 whatever the
  distribution;
* the **regression** wealth is multiplied by ``1 − ρ·x``, ``0 ≤ ρ < 1/B``: positive for every ``x ≤ B``, and if
  the mean difference is 0 or better (H1) its expectation is at most 1 whatever the distribution.

Each wealth is then a nonnegative supermartingale under its null, and by Ville's inequality reaches ``1/alpha``
(``1/beta``) with probability at most ``alpha`` (``beta``), at any stopping time.  That is the whole proof: no
normality, no symmetry, no variance estimate, no simulation; it holds for every distribution of group differences
within ``[−B, B]``, however skewed, and the stakes only decide how fast a verdict comes.  (Clipping is what the
bound is for: a loss below ``−B`` counted as ``−B`` makes a regression look smaller, so alpha needs losses within
the bound; a gain above ``B`` counted as ``B`` makes an equal bot look worse, so beta needs gains within it.  A
loss beyond the bound only helps the regression wealth, a gain beyond it only the pass wealth.)  The stake is the
growth-optimal one for the groups seen so far, recentred at the alternative the test must find (the better of
their mean and 0 for a pass, the worse of their mean and ``−margin`` for a regression) and widened by the
small-sample factor below: ``argmax_λ Σ log(1 + λ·y_i)``, a one-dimensional concave problem.  The price of the
guarantee is the stake's cap: with ``B`` = 80 and a group SD near 10 the cap binds, and a regression of the margin
takes as long as an equal bot's pass (docs/regression.md has the figures).  A group beyond the bound, outside the
guarantees, widens the bound on its side to itself for the rest of the run (``Sprt.loss_bound``,
``Sprt.gain_bound``), so that one rare deal is not clipped again and again.  Beyond the bound nothing is proved,
and no test could prove it (Bahadur and Savage 1956: rare big gains not drawn yet make an equal bot look weaker);
``Sprt.beyond_gains`` and ``Sprt.beyond_losses`` count such groups, so that a verdict can say its rate is not proved
for its run, but most wrong verdicts there come from runs that stopped before any (docs/regression.md).
``SprtSettings.tail`` 0 turns the betting tests off: both verdicts are then the LLR's, as in fishtest, with no
guarantee under skew or heavy tails.

``held`` says why an LLR already past a bound is not a verdict yet (``burn-in``, or ``tail``: the LLR says pass
or regression, the betting test of that side has not reached its bound yet), so that a user sees the run keep
playing for a reason.

Everything here is pure and synchronous: the regression runner feeds it, the tests simulate it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
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
MIN_MARGIN = 0.1
"""The smallest margin, in points per hand (a hand moves ~100 points): the hands a verdict takes grow with
1/margin², and below this no budget a person would play decides anything (docs/regression.md)."""
MIN_ERROR_RATE = 1e-6
"""The smallest alpha and beta: Wald's bounds grow with ln(1/alpha), and so do the hands a verdict takes."""


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
    """The bound ``B`` of the betting tests, in points per hand of a group: the largest group loss the pass's alpha
    covers and the largest group gain the regression's beta covers (0: no betting tests, the LLR decides)."""
    # Derived from the fields above once, in __post_init__ (the test reads them for every group it adds):
    mu0: float = field(init=False, repr=False, compare=False)
    """The mean under H0 (a regression of exactly ``margin``)."""
    mu1: float = field(init=False, repr=False, compare=False)
    """The mean under H1 (no difference)."""
    bounds: tuple[float, float] = field(init=False, repr=False, compare=False)
    """Wald's bounds ``(a, b)``: the LLR at or below ``a`` accepts H0, at or above ``b`` accepts H1."""
    evidence_bound: float = field(init=False, repr=False, compare=False)
    """The pass's betting bound: a pass once its log-wealth reaches ``ln(1/alpha)`` (Ville's inequality)."""
    regression_bound: float = field(init=False, repr=False, compare=False)
    """The regression's betting bound: a regression once its log-wealth reaches ``ln(1/beta)``."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin >= MIN_MARGIN):
            raise SprtError(f"--margin must be a number of points per hand, {MIN_MARGIN:g} or more, "
                            f"not {self.margin!r}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not MIN_ERROR_RATE <= value < 0.5:
                raise SprtError(f"--{name} must be from {MIN_ERROR_RATE:g} to 0.5 (exclusive), not {value!r}")
        if self.min_groups < 2:
            raise SprtError(f"min_groups must be at least 2 (a variance needs two groups), not {self.min_groups!r}")
        if not (math.isfinite(self.tail) and self.tail >= 0):
            raise SprtError(f"the tail loss must be a number of points, 0 or more, not {self.tail!r}")
        if 0 < self.tail <= self.margin:
            raise SprtError(f"the tail bound ({self.tail:g} points per hand of a group) must exceed the margin "
                            f"({self.margin:g}): a group that loses less than the margin is no tail")
        derived = {"mu0": -self.margin, "mu1": 0.0,
                   "bounds": (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)),
                   "evidence_bound": math.log(1 / self.alpha), "regression_bound": math.log(1 / self.beta)}
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    @property
    def max_stake(self) -> float:
        """The largest stake that keeps every factor ``1 + λ·(x + margin)``, ``x ≥ −B``, positive (0: no test)."""
        return self.stake_caps(self.tail, self.tail)[0] if self.tail > 0 else 0.0

    @property
    def max_regression_stake(self) -> float:
        """The largest stake that keeps every factor ``1 − ρ·x``, ``x ≤ B``, positive (0: no test)."""
        return self.stake_caps(self.tail, self.tail)[1] if self.tail > 0 else 0.0

    def stake_caps(self, loss_bound: float, gain_bound: float) -> tuple[float, float]:
        """The largest pass and regression stakes for groups from ``−loss_bound`` to ``gain_bound``."""
        return _STAKE_SHARE / (loss_bound - self.margin), _STAKE_SHARE / gain_bound


_STAKE_SHARE = 0.999
"""The largest stake, as a share of 1/(B − margin) (pass) or 1/B (regression): a group at the bound then keeps
0.1 % of the wealth."""
_RESTAKE_EVERY = 8
"""Past 2 × this many groups, the stake is re-optimised every n/this groups (it moves slowly; any stake fixed
before the group is seen keeps the guarantee, so this only saves time)."""


def best_stake(ys: list[float], cap: float, start: float = 0.0) -> float:
    """``argmax_{0 ≤ λ ≤ cap} Σ log(1 + λ·y)``: the growth-optimal stake on these outcomes (each ``1 + cap·y > 0``).
    The derivative ``Σ y / (1 + λ·y)`` decreases in λ: 0 if it is ≤ 0 at 0, ``cap`` if ≥ 0 at ``cap``, else its
    root by Newton's method kept inside a shrinking bracket."""

    def slope(lam: float) -> tuple[float, float]:
        g = d = 0.0
        for y in ys:
            q = y / (1.0 + lam * y)  # 1.0, not 1: the same number without an int-to-float step per term
            g += q
            d -= q * q
        return g, d

    if not ys or cap <= 0 or sum(ys) <= 0:
        return 0.0
    g = 0.0
    for y in ys:  # slope(cap)[0] alone: the same sum, without the second one
        g += y / (1.0 + cap * y)
    if g >= 0:
        return cap
    lo, hi = 0.0, cap
    lam = min(max(start, 0.0), cap) or cap / 2
    for _ in range(60):
        g, d = slope(lam)
        if g > 0:
            lo = lam
        else:
            hi = lam
        nxt = lam - g / d if d < 0 else (lo + hi) / 2
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2
        if abs(nxt - lam) <= 1e-9 * cap:
            return nxt
        lam = nxt
    return lam


def llr(n: int, mean: float, variance: float, mu0: float, mu1: float) -> float:
    """The approximate generalized log-likelihood ratio of H1 (mean ``mu1``) over H0 (mean ``mu0``) for ``n``
    observations with this ``mean`` and ``variance``: ``n·(mu1 − mu0)·(2·mean − mu0 − mu1) / (2·variance)``
    (fishtest ``LLR_alt2``).  0 without a variance: no evidence, never a division by zero."""
    if n < 2 or not variance > 0 or not math.isfinite(variance):
        return 0.0
    return n * (mu1 - mu0) * (2 * mean - mu0 - mu1) / (2 * variance)


_Z99 = NormalDist().inv_cdf(0.99)
# Student's t quantile: the exact one of the standings (one implementation for the project).


_KEPT_FACTORS = 4096
"""The factors remembered (every n up to this); above it Student's t is a short series (Cornish-Fisher), cheap to
recompute.  (A least-recently-used cache of this size was emptied by every run longer than it: the test asks for
n = 2, 3, 4… in order, so each new n evicted the oldest, and the next run paid for every exact quantile again.)"""
_factors: list[float] = [math.inf, math.inf]  # small_sample_factor(n) at index n, as far as it was asked


def small_sample_factor(n: int) -> float:
    """How much the sample variance of ``n`` observations is inflated before it enters the LLR:
    ``(t(0.99, n − 1) / z(0.99))²``, 1.66 at 8 groups, 1.12 at 30, 1.03 at 100, → 1."""
    if 0 <= n < len(_factors):
        return _factors[n]
    if n < 2:
        return math.inf
    if n > _KEPT_FACTORS:
        return _factor(n)
    _factors.extend(_factor(k) for k in range(len(_factors), n + 1))
    return _factors[n]


def _factor(n: int) -> float:
    return (t_quantile(0.99, n - 1) / _Z99) ** 2


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
    evidence: float = 0.0  # the pass's betting log-wealth: a pass at settings.evidence_bound
    stake: float = 0.0  # the pass's stake fixed for the next group
    regression_evidence: float = 0.0  # the regression's betting log-wealth: a regression at settings.regression_bound
    regression_stake: float = 0.0  # the regression's stake fixed for the next group
    beyond: int = 0  # groups beyond ±B: outside what alpha and beta are proved for
    beyond_gains: int = 0  # ... of them gains beyond +B (what beta, the regression verdict's rate, needs within it)
    beyond_losses: int = 0  # ... and losses beyond −B (what alpha, the pass's rate, needs within it)
    largest: float = 0.0  # the largest |difference| of a group so far
    _groups: list[float] = field(default_factory=list, repr=False)  # the groups, as they came
    _cmean: float = 0.0  # their mean
    _worst: float = 0.0  # the largest loss beyond the bound so far (0 if none): the loss bound widens to it
    _best: float = 0.0  # the largest gain beyond the bound so far: the gain bound widens to it
    _restake_at: int = 2

    def add(self, x: float) -> Verdict | None:
        """Add one observation; return the verdict if this one decides the test (and keep it), else None."""
        if not math.isfinite(x):
            raise SprtError(f"a group difference must be a finite number, not {x!r}")
        s = self.settings
        betting = s.tail > 0
        if betting:
            self._bet(x)
        n = self.n = self.n + 1
        if self.first is None:
            self.first = x
        elif x != self.first:
            self.constant = False
        delta = x - self.mean
        mean = self.mean + delta / n
        m2 = self._m2 + delta * (x - mean)
        if self.constant:  # exactly: rounding must not invent a variance
            mean, m2 = x, 0.0
        self.mean, self._m2 = mean, m2
        if self._state is not None:
            return None
        value = self.llr
        a, b = s.bounds
        passing = self.evidence >= s.evidence_bound if betting else value >= b
        failing = self.regression_evidence >= s.regression_bound if betting else value <= a
        hold: Hold | None = None
        verdict: Verdict | None = None
        if value <= a or value >= b or passing or failing:
            if n < s.min_groups:
                hold = "burn-in"
            elif failing:
                verdict = "regression"
            elif passing:
                verdict = "pass"
            else:
                hold = "tail"
        if hold is not None and hold != self.held:
            self.last_hold = (hold, self.n)
        self.held = hold
        if verdict is not None:
            self._state, self.decided_at = verdict, n
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
        n = self.n
        if n < 2:
            return 0.0
        s = self.settings
        return llr(n, self.mean, self._m2 / (n - 1) * small_sample_factor(n), s.mu0, s.mu1)

    @property
    def loss_bound(self) -> float:
        """The pass's bound on losses now: ``B``, widened to the largest loss seen if one was beyond it."""
        return max(self.settings.tail, self._worst)

    @property
    def gain_bound(self) -> float:
        """The regression's bound on gains now: ``B``, widened to the largest gain seen if one was beyond it."""
        return max(self.settings.tail, self._best)

    def _caps(self) -> tuple[float, float]:
        """The largest stakes the bounds allow now: every factor stays positive for groups within them."""
        return self.settings.stake_caps(self.loss_bound, self.gain_bound)

    def _bet(self, x: float) -> None:
        """The betting tests' step for the group ``x`` (before it enters the other statistics): the pass wealth is
        multiplied by ``1 + stake·(clip(x) + margin)``, the regression wealth by ``1 − regression_stake·clip(x)``,
        with the stakes and the bounds fixed from the groups before it; then the bounds and stakes for the next.

        Within ``[−B, B]`` the bounds stay ``B``: the guarantees' case.  A group beyond them is clipped, and then
        widens the bound on its side to itself (so every group seen is within the bounds, and the stake on that
        side shrinks to keep the factors positive): a bot whose groups pass the bound is outside what alpha and beta
        are proved for, and this keeps one such group from being clipped again and again (docs/regression.md shows
        the rates)."""
        s = self.settings
        c = min(self.gain_bound, max(-self.loss_bound, x))
        self.beyond += abs(x) > s.tail
        self.beyond_gains += x > s.tail
        self.beyond_losses += -x > s.tail
        self.largest = max(self.largest, abs(x))
        if self.stake > 0:
            self.evidence += math.log1p(self.stake * (c + s.margin))
        if self.regression_stake > 0:
            self.regression_evidence += math.log1p(-self.regression_stake * c)
        if x != c:  # beyond a bound: widen it, and keep the stakes it allows
            self._worst, self._best = max(self._worst, -x), max(self._best, x)
            cap, regression_cap = self._caps()
            self.stake, self.regression_stake = min(self.stake, cap), min(self.regression_stake, regression_cap)
        self._groups.append(x)
        n = len(self._groups)
        self._cmean += (x - self._cmean) / n
        if n >= self._restake_at:
            self.stake = self.next_stake()
            self.regression_stake = self.next_regression_stake()
            self._restake_at = n + (1 if n < 2 * _RESTAKE_EVERY else n // _RESTAKE_EVERY)

    def _recentred(self, centre: float) -> list[float]:
        """The groups moved to mean ``centre``, their spread widened by the small-sample factor, clipped to the
        bounds."""
        n = len(self._groups)
        widen = math.sqrt(small_sample_factor(n))
        high, low, mean = self.gain_bound, -self.loss_bound, self._cmean
        # min(high, max(low, v)) written out, v = (c − mean)·widen + centre: the same numbers without two calls
        # per group
        return [high if (v := (c - mean) * widen + centre) > high else low if v < low else v for c in self._groups]

    def next_stake(self) -> float:
        """The pass's growth-optimal stake on the groups so far, recentred at the better of their mean and 0 (the
        alternative to find) and their spread widened by the small-sample factor; 0 before two groups."""
        if len(self._groups) < 2:
            return 0.0
        margin = self.settings.margin
        ys = [v + margin for v in self._recentred(max(self._cmean, 0.0))]
        return best_stake(ys, self._caps()[0], self.stake)

    def next_regression_stake(self) -> float:
        """The regression's stake, the mirror image: on the groups recentred at the worse of their mean and
        ``−margin``, each a gain of ``−x`` for the bettor; 0 before two groups."""
        if len(self._groups) < 2:
            return 0.0
        ys = [-v for v in self._recentred(min(self._cmean, -self.settings.margin))]
        return best_stake(ys, self._caps()[1], self.regression_stake)

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
    within: tuple[float, float] | None = None  # (passed, failed) by ``budget`` groups, when one was given
    capped: float = 0.0  # the fraction of runs stopped undecided at max_groups (their length is only "more than")
    passed_beyond: float = 0.0  # the fraction of runs that passed after a loss beyond the bound (alpha not proved)
    failed_beyond: float = 0.0  # ... that ended in regression after a gain beyond it (beta not proved)


def simulate(settings: SprtSettings, draw: Callable[[random.Random], float], *, runs: int = 1000,
             max_groups: int = 20_000, seed: int = 1, budget: int | None = None,
             max_work: int | None = None) -> Simulated:
    """Run the test ``runs`` times on groups from ``draw`` (seeded: the same figures every time).  What the
    planning figures and the calibration tests come from: the real test, burn-in, small-sample factor, betting
    test and overshoot included, which the Brownian formulas below leave out.  ``budget``: also count how the
    runs end within that many groups (a run cut there is the same run, stopped early).  A run is stopped
    undecided at ``max_groups``; ``max_work`` bounds the groups of all runs together: no run starts once they
    reach it, so ``Simulated.runs`` may be fewer than ``runs`` (the work is at most ``max_work + max_groups``
    groups, whatever the settings and the draws)."""
    rng = random.Random(seed)
    lengths: list[int] = []
    passed = failed = passed_beyond = failed_beyond = 0
    passed_by = failed_by = 0
    work = 0
    for _ in range(runs):
        if max_work is not None and work >= max_work:
            break
        s = Sprt(settings)
        verdict = None
        while verdict is None and s.n < max_groups:
            verdict = s.add(draw(rng))
        passed += verdict == "pass"
        failed += verdict == "regression"
        passed_beyond += verdict == "pass" and s.beyond_losses > 0
        failed_beyond += verdict == "regression" and s.beyond_gains > 0
        if budget is not None and s.n <= budget:
            passed_by += verdict == "pass"
            failed_by += verdict == "regression"
        work += s.n
        lengths.append(s.n if verdict is not None else max_groups + 1)
    runs = len(lengths)
    lengths.sort()
    p95 = lengths[math.ceil(0.95 * runs) - 1]
    capped = sum(n > max_groups for n in lengths)
    return Simulated(runs, passed / runs, failed / runs, (runs - passed - failed) / runs,
                     sum(min(n, max_groups) for n in lengths) / runs, p95 if p95 <= max_groups else None,
                     (passed_by / runs, failed_by / runs) if budget is not None else None, capped / runs,
                     passed_beyond / runs, failed_beyond / runs)


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


def exponential_groups(mean: float, scale: float) -> Callable[[random.Random], float]:
    """A right-skewed model: ``mean + scale·(E − 1)``, E exponential with mean 1 (many small losses, rare big
    wins: a bot that plays for bigger hands; skew 2)."""
    return lambda rng: mean + scale * (rng.expovariate(1.0) - 1.0)


def two_point_groups(mean: float, low: float, high: float, share: float) -> Callable[[random.Random], float]:
    """A skewed mixture: ``high`` in a ``share`` of the groups, ``low`` in the others, shifted to the given
    ``mean``."""
    shift = mean - (share * high + (1 - share) * low)
    return lambda rng: shift + (high if rng.random() < share else low)


def lognormal_groups(mean: float, scale: float, sigma: float) -> Callable[[random.Random], float]:
    """Lognormal wins: ``scale·L`` with L lognormal (log-SD ``sigma``), shifted to the given ``mean``."""
    centre = scale * math.exp(sigma * sigma / 2)
    return lambda rng: mean - centre + scale * rng.lognormvariate(0.0, sigma)


def jackpot_groups(mean: float, sd: float, share: float, low: float, high: float) -> Callable[[random.Random], float]:
    """Rare big wins: a ``share`` of the groups win uniformly from ``low`` to ``high``, the others are normal
    (``sd``) and make up the overall ``mean``."""
    rest = (mean - share * (low + high) / 2) / (1 - share)
    return lambda rng: rng.uniform(low, high) if rng.random() < share else rng.gauss(rest, sd)


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
    "best_stake",
    "Simulated",
    "fault_excess_p",
    "exponential_groups",
    "jackpot_groups",
    "lognormal_groups",
    "normal_groups",
    "poisson_loss_groups",
    "two_point_groups",
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
