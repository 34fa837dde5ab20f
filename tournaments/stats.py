"""Statistics over a results store: standings and head-to-head numbers that come with honest intervals.

Why a module of its own: a table of means says little unless it also says how sure we are.  Results of the matches
of one *duplicate group* (one table of bots on one seed, played in each seating) share their walls, so they are not
independent; the group is the unit of independence.  Every interval here is therefore **clustered by duplicate
group**:

* a bot's mean points per hand is the ratio ``sum(points) / sum(hands)`` over its seats;
* its variance is the cluster-robust (linearised ratio-estimator) formula over the groups ``g`` it played in,
  with ``Y_g`` its points and ``N_g`` its hands in the group and ``r`` the ratio::

      var(r) = Ge / (Ge - 1) * sum_g (Y_g - r * N_g) ** 2 / (sum_g N_g) ** 2,   Ge = (sum_g N_g) ** 2 / sum_g N_g ** 2

  ``Ge`` is the effective number of groups: ``G`` when the groups are equal in size, and then this is the "CR1"
  formula, exactly ``s**2 / G`` over the per-group means (the textbook standard error).  With unequal groups
  ``Ge/(Ge - 1)`` is the factor that makes it unbiased when a group's variance grows with its hands (each residual
  loses ``N_g**2 / sum N**2`` of its variance to the fitted ratio), close to the "CR2" correction and computed from
  the same sums (measured in ``bench/coverage.py``: 94.3 % at 5 unequal groups, where CR1 covered 93.0 %);
* the 95% interval is ``r +- t(0.975, G - 1) * se``, Student's t with ``G - 1`` degrees of freedom, because the
  number of groups is often small, widened where the groups are skewed to cover Hall's (1992) skewness-corrected
  t interval too (the union of the two; the skewness is the sample skewness of the residuals ``Y_g - r N_g``, from
  third moments summed like the others).  The t interval alone covers 95 % for normal, heavy-tailed and unequal
  groups from 5 groups on, but 88 % at 5 exponential-like groups and 90 % at 10; the union 93 % and 94.4 %
  (``bench/coverage.py``, docs/statistics.md).  Where it is short of 95 % the table says so in every cell, by
  the number of groups (:func:`interval_caveat`): below :data:`SKEW_MIN_GROUPS` groups "95 % if not skewed", and
  below :data:`SKEWED_MIN_GROUPS` "95 % if not very skewed" (lognormal-like groups: 91 % at 10, 93 % at 20).  Not
  by the groups' own skewness: the intervals that miss a skewed result are those whose groups drew none of its
  rare big values and look no more skewed than normal ones (and those that did are widened and cover), so no rule
  on the groups marks them; nor does any interval measured cover them (bootstrap-t 90-92 %).  Points per hand and
  head-to-head differences get the correction; ranks and first-place rates (bounded, summed without third
  moments) keep the t interval and the first caveat only.  Below :data:`MIN_GROUPS` groups
  there is no interval: it is ``None`` (null in JSON, "too few groups" in text).  With 2 groups ``t`` is 12.7 and
  the interval says nothing ("avg rank 1.62 ± 7.94"); when both groups happen to agree it is a false "± 0.00".

The t quantile is computed here without scipy (:func:`t_quantile`): exactly, for integer degrees of freedom, by
inverting the closed-form t distribution (Abramowitz & Stegun 26.7.3-4); for very large degrees of freedom by the
Cornish-Fisher expansion (A&S 26.7.5).

Everything is a pure function of totals: :func:`compute_standings` has SQLite sum the store (read-only, in one
transaction); :func:`build_standings` sums :class:`SeatRow` s (a seat's :class:`referee.results.SeatResult` and its
match), for tests and simulations.  The
renderers (:func:`to_json`, :func:`to_csv`, :func:`to_markdown`) are plain text; the rich table lives with the
``mjref standings`` command.  See docs/statistics.md for what each number means.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from statistics import NormalDist
from typing import Any, Literal

from referee.errors import printable
from referee.markdown import md_text
from referee.results import SeatResult
from wrappers.identity import short_identity

from . import totals as agg
from .config import DUMMY_PREFIX, trusted_memory
from .store import MatchRecord, StoreError, connect, has_totals

LEVEL = 0.95
MIN_GROUPS = 5
"""The fewest groups (clusters) an interval is given for; below it the text says "too few groups" (docs/statistics.md).
At 5 groups the t interval is checked to cover 95% of the time on simulated tournaments."""
ClusterBy = Literal["group", "seed"]
SKEW_MIN_GROUPS = 10
"""Below this many groups no interval measured covers 95 % for skewed results (exponential-like groups at 5: 88 %
for the t interval, 93 % with the skewness correction, 93 % bootstrap-t; ``bench/coverage.py``), and the groups
cannot show the skew: every interval says "95 % if not skewed"."""
SKEWED_MIN_GROUPS = 50
"""Below this many groups (from :data:`SKEW_MIN_GROUPS`) an interval of points says "95 % if not very skewed": it
covers exponential-like skew (skewness 2) but not lognormal-like (skewness 6: 91 % at 10 groups, 93 % at 20, 94 %
at 50; ``bench/coverage.py``)."""
CUBES_MAX_CLUSTERS = 20_000
"""Up to this many clusters standings also read the third moments (one pass over the kept clusters); above it the
skewness is not computed (a result's skewness matters less the more groups it has)."""
CAVEATS = {"few": "95 % if not skewed", "short": "95 % if not very skewed"}
"""Why an interval may cover less than 95 % (``Estimate.caveat``; ``ci95_caveat`` in JSON)."""
MARKS = {"few": "†", "short": "‡"}
"""How the text tables mark an interval with a caveat (it concerns every interval of a short tournament: one note
under the table says what the mark means; the HTML report writes the caveat in full)."""

# ------------------------------------------------------------------------------------------------ t quantile

_EXACT_DF_LIMIT = 2000  # above this, the Cornish-Fisher expansion errs by < 1e-12


_EVEN_RATIOS = [(2 * k - 1) / (2 * k) for k in range(1, _EXACT_DF_LIMIT // 2 + 1)]
_ODD_RATIOS = [(2 * k) / (2 * k + 1) for k in range(1, _EXACT_DF_LIMIT // 2 + 1)]
# The series' term ratios, divided once: the same numbers as dividing in the loop, a third of its time (the SPRT
# asks for t(0.99, df) at every df up to 2000, a few series of df / 2 terms each).


def _t_two_sided(t: float, df: int) -> float:
    """``P(|T| < t)`` for ``t >= 0`` and integer ``1 <= df <= _EXACT_DF_LIMIT`` (Abramowitz & Stegun 26.7.3 and
    26.7.4; above the limit the quantile is the Cornish-Fisher expansion, and the ratios are kept up to it)."""
    assert 1 <= df <= _EXACT_DF_LIMIT, df
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        m = df // 2 - 1
        term = total = 1.0
        for r in _EVEN_RATIOS[:m]:
            term *= r * c2
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    c = math.cos(theta)
    m = (df - 1) // 2 - 1
    term = total = c
    for r in _ODD_RATIOS[:m]:
        term *= r * c2
        total += term
    return 2 / math.pi * (theta + s * total)


def _t_density(t: float, df: int) -> float:
    log = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
           - (df + 1) / 2 * math.log1p(t * t / df))
    return math.exp(log)


def _cornish_fisher(z: float, df: float) -> float:
    """Student's t quantile from the normal one (A&S 26.7.5), good when ``df`` is large."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``t_quantile(0.975, 4) == 2.776...``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, not {p}")
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"degrees of freedom must be a whole number >= 1, not {df!r}")
    return _t_quantile(p, df)


@lru_cache(maxsize=4096, typed=True)
def _t_quantile(p: float, df: int) -> float:
    """:func:`t_quantile` of valid arguments, remembered: standings ask for the same few quantiles (0.975 at the
    number of groups) once per estimate, thousands of times in a simulation."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_t_quantile(1.0 - p, df)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    start = _cornish_fisher(NormalDist().inv_cdf(p), df)
    if df > _EXACT_DF_LIMIT:
        return start
    # Newton's method on the exact distribution function, kept inside a bracket (bisection when it strays).
    target = 2 * p - 1  # P(|T| < t) at the quantile
    lo, hi = 0.0, max(start, 1.0)
    while _t_two_sided(hi, df) < target:
        lo, hi = hi, hi * 2
    t = min(max(start, lo), hi)
    for _ in range(200):
        f = _t_two_sided(t, df) - target
        if f < 0:
            lo = t
        else:
            hi = t
        step = f / (2 * _t_density(t, df))
        nxt = t - step
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2
        if abs(nxt - t) <= 1e-15 * max(1.0, abs(t)) or hi - lo <= 1e-15 * max(1.0, hi):
            return nxt
        t = nxt
    return t


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """``P(X <= k)``, X ~ Binomial(n, p), summed in logs (n up to a few hundred thousand)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    log_p, log_q, lg = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    return min(1.0, math.fsum(math.exp(lg - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q)
                              for i in range(k + 1)))


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial proportion, ``k`` successes in ``n`` trials: the ``p``
    at which ``P(X >= k)`` and ``P(X <= k)`` are each ``(1 - level) / 2``, by bisection."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"need 0 <= k <= n and n >= 1, not k={k}, n={n}")
    tail = (1 - level) / 2

    def solve(f: Callable[[float], float]) -> float:  # f increasing in p, root in [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2

    lower = 0.0 if k == 0 else solve(lambda p: (1 - _binomial_cdf(k - 1, n, p)) - tail)
    upper = 1.0 if k == n else solve(lambda p: tail - _binomial_cdf(k, n, p))
    return lower, upper


# ------------------------------------------------------------------------------------------------ estimates


@dataclass(frozen=True, slots=True)
class Estimate:
    """A ratio estimate with its cluster-robust standard error and 95% interval (``None`` when undefined)."""

    value: float | None
    se: float | None
    lo: float | None
    hi: float | None
    clusters: int
    skew: float | None = None  # the sample skewness of the groups' residuals (None: unknown, or fewer than 3)
    caveat: str | None = None  # a key of CAVEATS: why the interval may cover less than 95 %
    @property
    def ci95(self) -> tuple[float, float] | None:
        return None if self.lo is None or self.hi is None else (self.lo, self.hi)

    @property
    def half_width(self) -> float | None:
        return None if self.lo is None or self.hi is None else (self.hi - self.lo) / 2

    @property
    def excludes_zero(self) -> bool:
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)


@dataclass(frozen=True, slots=True)
class Moments:
    """What a clustered ratio needs of its clusters ``(y, n)``, summed: ``G``, ``Σy``, ``Σn``, ``Σy²``, ``Σyn``,
    ``Σn²``.  Small and additive, so SQLite can compute it over a million clusters (``mjref standings``)."""

    g: int
    sy: float
    sn: float
    syy: float
    syn: float
    snn: float
    cubes: tuple[float, float, float, float] | None = None
    """``(Σy³, Σy²n, Σyn², Σn³)``, for the skewness; None where they were not summed."""

    @classmethod
    def of(cls, clusters: Iterable[Sequence[float]], cubes: bool = True) -> Moments:
        """The moments of clusters ``(y, n)``; ``cubes``: with the third ones (the skewness)."""
        pairs = [(float(y), float(n)) for y, n in clusters if n]
        return cls(len(pairs), math.fsum(y for y, _ in pairs), math.fsum(n for _, n in pairs),
                   math.fsum(y * y for y, _ in pairs), math.fsum(y * n for y, n in pairs),
                   math.fsum(n * n for _, n in pairs),
                   (math.fsum(y ** 3 for y, _ in pairs), math.fsum(y * y * n for y, n in pairs),
                    math.fsum(y * n * n for y, n in pairs), math.fsum(n ** 3 for _, n in pairs)) if cubes else None)

    def skew(self, r: float) -> float | None:
        """The sample skewness of the residuals ``y - r n`` (None without the cubes, or for fewer than 3
        clusters, or no spread)."""
        if self.cubes is None or self.g < 3:
            return None
        y3, y2n, yn2, n3 = self.cubes
        m2 = max(0.0, self.syy - 2 * r * self.syn + r * r * self.snn) / self.g
        m3 = (y3 - 3 * r * y2n + 3 * r * r * yn2 - r ** 3 * n3) / self.g
        # The expansions cancel: residuals all but equal (a bot against a dummy of itself, summed by SQLite in
        # floating point) leave rounding, not a skewness.  So a spread of a millionth of a point per group, or below
        # a billionth of the numbers' own size, is no spread.
        scale = (abs(y3) + 3 * abs(r * y2n) + 3 * r * r * abs(yn2) + abs(r) ** 3 * abs(n3)) / self.g
        if not m2 > max(1e-12, 1e-12 * (self.syy + r * r * self.snn) / self.g) or m2 ** 1.5 <= 1e-9 * scale:
            return None
        return max(-self.g, min(self.g, m3 / m2 ** 1.5))


def interval_caveat(g: int, bounded: bool = False) -> str | None:
    """Why an interval over ``g`` clusters may cover less than 95 %: a key of :data:`CAVEATS`, or None.
    ``bounded``: a rank or a rate, which cannot be skewed without a limit as points can: the first caveat only."""
    if g < SKEW_MIN_GROUPS:
        return "few"
    if not bounded and g < SKEWED_MIN_GROUPS:
        return "short"
    return None


def ratio_estimate(m: Moments, level: float = LEVEL, min_groups: int = MIN_GROUPS, bounded: bool = False) -> Estimate:
    """``Σy / Σn`` with the ratio-estimator SE (CR1 with the effective number of groups, see the module docstring)
    and a t interval, from the clusters' moments: ``Σ (y - r n)² = Σy² - 2 r Σyn + r² Σn²``.  ``bounded``: a rank or
    a rate (:func:`interval_caveat`)."""
    if m.g == 0 or m.sn == 0:
        return Estimate(None, None, None, None, m.g)
    r = m.sy / m.sn
    if m.g < 2:
        return Estimate(r, None, None, None, m.g)
    ss = max(0.0, m.syy - 2 * r * m.syn + r * r * m.snn)
    effective = min(float(m.g), m.sn * m.sn / m.snn)  # (Σn)² / Σn² ≤ G; equal sizes: G (rounding kept out)
    effective = max(effective, 1.0 + 1e-9)  # one group of all the hands and crumbs: an enormous se, never 1/0
    se = math.sqrt(effective / (effective - 1) * ss) / m.sn
    skew = m.skew(r)
    if m.g < max(min_groups, 2):
        return Estimate(r, se, None, None, m.g, skew)
    t = t_quantile(0.5 + level / 2, m.g - 1)
    lo, hi = r - t * se, r + t * se
    if skew is not None:  # the union with Hall's skewness-corrected interval
        a = skew / math.sqrt(m.g)
        lo, hi = min(lo, r - _hall_inverse(t, a) * se), max(hi, r - _hall_inverse(-t, a) * se)
    return Estimate(r, se, lo, hi, m.g, skew, interval_caveat(m.g, bounded))


def _hall_inverse(q: float, a: float) -> float:
    """The ``T`` with ``g(T) = q`` for Hall's (1992) monotone transformation of the t statistic,
    ``g(T) = T + a·T²/3 + a²·T³/27 + a/6 = ((1 + a·T/3)³ − 1)/a + a/6``, ``a`` the skewness over √G."""
    if abs(a) < 1e-9:
        return q
    z = 1 + a * (q - a / 6)
    return 3 / a * (math.copysign(abs(z) ** (1 / 3), z) - 1)


def cluster_ratio(clusters: Iterable[tuple[float, float]], level: float = LEVEL,
                  min_groups: int = MIN_GROUPS) -> Estimate:
    """``sum(y) / sum(n)`` over clusters ``(y, n)``, with the ratio-estimator SE and a t interval.

    Clusters with ``n == 0`` carry no information and are left out (they would only inflate ``G``).  The SE needs
    two clusters; the interval needs ``min_groups`` (at least 2).
    """
    return ratio_estimate(Moments.of(clusters), level, min_groups)


# ------------------------------------------------------------------------------------------------ rows and results


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat's result (:class:`referee.results.SeatResult`, as the store keeps it) and where it was played: its
    match, duplicate group and seed, which decide how it is clustered."""

    match_id: str
    group: str
    seed: int
    seat: SeatResult

    @classmethod
    def of(cls, records: Iterable[MatchRecord]) -> Iterator[SeatRow]:
        """The rows of finished matches (every seat of each)."""
        for rec in records:
            for seat in rec.seat_results:
                yield cls(rec.id, rec.group, rec.seed, seat)


@dataclass(frozen=True, slots=True)
class BotStanding:
    name: str
    dummy: bool
    matches: int
    hands: int  # seat-hands: a dummy filling two seats of a match counts each seat's hands
    points: float  # an int when the store's points are
    mean: Estimate  # points per hand
    rank: Estimate  # average rank per match (1 = best, ties share)
    first_rate: Estimate  # share of matches finished first; a k-way tie for first counts 1/k
    win_rate: float | None
    self_draw_rate: float | None
    deal_in_rate: float | None
    wins: int
    self_draws: int
    deal_ins: int
    fault_count: int
    faults: dict[str, int]  # by kind, from the faults table
    answers: int
    mean_answer_ms: float | None
    max_answer_ms: float | None
    identity: str | None = None  # a process bot's fingerprint of its files (wrappers.identity.short_identity)

    @property
    def groups(self) -> int:
        return self.mean.clusters


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """A's points minus B's points per hand, over the matches where both sat."""

    a: str
    b: str
    matches: int
    hands: int
    diff: Estimate

    @property
    def groups(self) -> int:
        return self.diff.clusters


@dataclass(frozen=True, slots=True)
class Standings:
    name: str | None
    matches: int
    hands: int
    groups: int
    cluster_by: str
    bots: list[BotStanding]
    head_to_head: list[HeadToHead] = field(default_factory=list)
    # None, or the tournament ran with trust_memory = true: the bots that could remember across matches, with why
    trust_memory: list[str] | None = None

    @property
    def mark(self) -> str:
        """What follows the tournament's name in every title: ``(ran with trust_memory = true)``, or nothing."""
        return f" ({TRUST_MEMORY_MARK})" if self.trust_memory is not None else ""

    @property
    def cluster_word(self) -> str:
        return "duplicate group" if self.cluster_by == "group" else "seed"

    @property
    def notes(self) -> list[str]:
        w = self.cluster_word
        out = [f"95% intervals are clustered by {w} (Student's t with {w}s - 1 degrees of freedom, widened by Hall's "
               "skewness correction where the groups are skewed); no interval allows for rare big results that no "
               f"{w} has shown yet (docs/statistics.md)."]
        short = [b.name for b in self.bots if b.hands and b.mean.ci95 is None]
        if short:
            out.append(f"no interval for {', '.join(short)}: an interval needs results from at least {MIN_GROUPS} "
                       f"{w}s (shown as 'too few groups'; null in JSON). Play more seeds.")
        estimates = [e for b in self.bots for e in (b.mean, b.rank, b.first_rate)] + [h.diff for h in self.head_to_head]
        if any(e.caveat == "few" for e in estimates):
            out.append(f"{MARKS['few']} {CAVEATS['few']}: with fewer than {SKEW_MIN_GROUPS} {w}s a skewed result's "
                       "interval covers less (93 % for an exponential-like skew, 88 % lognormal-like), and so few "
                       f"{w}s cannot show the skew (docs/statistics.md). Play more seeds.")
        if any(e.caveat == "short" for e in estimates):
            out.append(f"{MARKS['short']} {CAVEATS['short']}: with {SKEW_MIN_GROUPS} to {SKEWED_MIN_GROUPS - 1} {w}s "
                       "an interval covers an exponential-like skew (many small losses, a few big wins) but not a "
                       "stronger one (lognormal-like: 91 % at 10, 93 % at 20); the intervals that miss are those whose "
                       f"{w}s drew none of the rare big results, so the {w}s cannot show it (docs/statistics.md). "
                       "Play more seeds.")
        if any(b.dummy for b in self.bots):
            out.append(f"bots named {DUMMY_PREFIX}-* are dummies that filled empty seats, not participants.")
        if self.trust_memory is not None:
            out.append(f"{TRUST_MEMORY_MARK}: {', '.join(self.trust_memory) or 'no bot'} could remember across "
                       "matches, and the organiser trusted them not to carry a deal from one match to the next; "
                       "the results hold only as far as that trust does.")
        return out


TRUST_MEMORY_MARK = "ran with trust_memory = true"
"""How standings and reports mark a tournament whose file trusted bots that can remember (``config.remembers``)."""


def is_dummy(name: str) -> bool:
    return name.startswith(f"{DUMMY_PREFIX}-")


def _first_credits(points: Sequence[float]) -> list[float]:
    """Each seat's first-place credit in a match: 1 for the unique best total, 1/k to each of k seats that tie for
    the best, else 0."""
    best = max(points)
    share = 1.0 / sum(1 for p in points if p == best)
    return [share if p == best else 0.0 for p in points]


def _rate(num: float, den: float) -> float | None:
    return num / den if den else None


@dataclass(frozen=True, slots=True)
class BotTotals:
    """A bot's sums over the store, and the moments of its clusters: all that its standing needs."""

    bot: str
    matches: int
    hands: int
    points: float
    wins: int
    self_draws: int
    deal_ins: int
    faults: int
    answers: int
    answer_seconds: float
    max_answer_seconds: float
    mean: Moments  # clusters (points, hands)
    rank: Moments  # clusters (rank sum, seats)
    first: Moments  # clusters (first-place credit, seats)


@dataclass(frozen=True, slots=True)
class PairTotals:
    a: str
    b: str
    matches: int
    hands: int
    diff: Moments  # clusters (A's mean points minus B's, per match, summed; hands)


@dataclass(slots=True)
class _Sums:
    """A bot's running sums over seat rows, and its clusters' ``[y, n]`` for the mean, the rank and first place."""

    matches: set[str] = field(default_factory=set)
    hands: int = 0
    points: float = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    faults: int = 0
    answers: int = 0
    answer_seconds: float = 0.0
    max_answer_seconds: float = 0.0
    mean: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    rank: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    first: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))

    def add(self, row: SeatRow, cluster: str, first_credit: float) -> None:
        r = row.seat
        self.matches.add(row.match_id)
        self.hands += r.hands
        self.points += r.points
        self.wins += r.wins
        self.self_draws += r.self_draws
        self.deal_ins += r.deal_ins
        self.faults += r.faults
        self.answers += r.answers
        self.answer_seconds += r.answer_seconds
        self.max_answer_seconds = max(self.max_answer_seconds, r.max_answer_seconds)
        y_n = self.mean[cluster]
        y_n[0] += r.points
        y_n[1] += r.hands
        y_n = self.rank[cluster]
        y_n[0] += r.rank
        y_n[1] += 1
        y_n = self.first[cluster]
        y_n[0] += first_credit
        y_n[1] += 1

    def totals(self, bot: str) -> BotTotals:
        return BotTotals(bot, len(self.matches), self.hands, self.points, self.wins, self.self_draws, self.deal_ins,
                         self.faults, self.answers, self.answer_seconds, self.max_answer_seconds,
                         Moments.of(self.mean.values()), Moments.of(self.rank.values(), cubes=False),
                         Moments.of(self.first.values(), cubes=False))  # as the store's: skewness for points only


def _bot_totals(by_match: Mapping[str, list[SeatRow]], key: Callable[[SeatRow], str]) -> list[BotTotals]:
    sums: dict[str, _Sums] = {}
    for rs in by_match.values():
        for r, credit in zip(rs, _first_credits([r.seat.points for r in rs])):
            bot = r.seat.bot
            s = sums.get(bot)
            if s is None:  # not setdefault: that would build a _Sums (a set, three dicts) for every seat
                s = sums[bot] = _Sums()
            s.add(r, key(r), credit)
    return [s.totals(bot) for bot, s in sums.items()]


def _pair_totals(by_match: Mapping[str, list[SeatRow]], key: Callable[[SeatRow], str],
                 match_hands: Mapping[str, int]) -> list[PairTotals]:
    """Head-to-head: per match, each bot's mean points over its seats there (one seat, unless a dummy fills two)."""
    # per ordered pair: [matches, hands] and its clusters' [y, n], in the order the pairs and clusters first appear
    pairs: dict[tuple[str, str], tuple[list[int], dict[str, list[float]]]] = {}
    for match_id, rs in by_match.items():
        seat_points: dict[str, list[float]] = defaultdict(list)
        for r in rs:
            seat_points[r.seat.bot].append(r.seat.points)
        mean_points = [(b, math.fsum(p) / len(p)) for b, p in seat_points.items()]
        hands = match_hands[match_id]
        k = key(rs[0])
        for a_name, a_pts in mean_points:
            for b_name, b_pts in mean_points:
                if a_name == b_name:
                    continue
                entry = pairs.get((a_name, b_name))
                if entry is None:
                    entry = pairs[a_name, b_name] = ([0, 0], {})
                count, clusters = entry
                count[0] += 1
                count[1] += hands
                cluster = clusters.get(k)
                if cluster is None:
                    cluster = clusters[k] = [0.0, 0.0]
                cluster[0] += a_pts - b_pts
                cluster[1] += hands
    return [PairTotals(a, b, c[0], c[1], Moments.of(clusters.values())) for (a, b), (c, clusters) in pairs.items()]


def totals_from_rows(rows: Iterable[SeatRow], cluster_by: ClusterBy = "group") -> tuple[
        list[BotTotals], list[PairTotals], int, int, int]:
    """Bot and pair totals, matches, hands and clusters from seat rows (tests and simulations); the store's are
    summed by SQLite instead (:func:`read_totals`)."""
    by_match: dict[str, list[SeatRow]] = defaultdict(list)
    for row in rows:
        by_match[row.match_id].append(row)

    def key(row: SeatRow) -> str:
        return row.group if cluster_by == "group" else str(row.seed)

    match_hands = {m: max(r.seat.hands for r in rs) for m, rs in by_match.items()}
    clusters_all = {key(rs[0]) for rs in by_match.values()}
    return (_bot_totals(by_match, key), _pair_totals(by_match, key, match_hands), len(by_match),
            sum(match_hands.values()), len(clusters_all))


def assemble(bot_totals: Iterable[BotTotals], pair_totals: Iterable[PairTotals], matches: int, hands: int,
             groups: int, faults: Mapping[str, Mapping[str, int]] | None = None, *, cluster_by: ClusterBy = "group",
             name: str | None = None, level: float = LEVEL, identities: Mapping[str, str] | None = None,
             trust_memory: list[str] | None = None) -> Standings:
    """Standings from totals (however they were summed): the estimates, the order, the head-to-head."""
    faults = faults or {}
    identities = identities or {}
    bots = [
        BotStanding(
            name=printable(t.bot), dummy=is_dummy(t.bot), matches=t.matches, hands=t.hands, points=t.points,
            mean=ratio_estimate(t.mean, level), rank=ratio_estimate(t.rank, level, bounded=True),
            first_rate=ratio_estimate(t.first, level, bounded=True),
            win_rate=_rate(t.wins, t.hands), self_draw_rate=_rate(t.self_draws, t.hands),
            deal_in_rate=_rate(t.deal_ins, t.hands), wins=t.wins, self_draws=t.self_draws, deal_ins=t.deal_ins,
            fault_count=t.faults, faults=dict(sorted((printable(k), n) for k, n in faults.get(t.bot, {}).items())),
            answers=t.answers,
            mean_answer_ms=_rate(1000 * t.answer_seconds, t.answers),
            max_answer_ms=1000 * t.max_answer_seconds if t.answers else None,
            identity=printable(identities[t.bot]) if t.bot in identities else None,
        )
        for t in bot_totals
    ]
    bots.sort(key=lambda b: (b.mean.value is None, -(b.mean.value or 0.0), b.name))
    order = {b.name: i for i, b in enumerate(bots)}
    # names from a store, escaped as above (the totals' own names are the store's, as written)
    h2h = [HeadToHead(printable(p.a), printable(p.b), p.matches, p.hands, ratio_estimate(p.diff, level))
           for p in pair_totals if printable(p.a) in order and printable(p.b) in order]
    h2h.sort(key=lambda x: (order[x.a], order[x.b]))
    return Standings(name=name, matches=matches, hands=hands, groups=groups, cluster_by=cluster_by, bots=bots,
                     head_to_head=h2h, trust_memory=trust_memory)


def build_standings(
    rows: Iterable[SeatRow],
    faults: Mapping[str, Mapping[str, int]] | None = None,
    *,
    cluster_by: ClusterBy = "group",
    name: str | None = None,
    level: float = LEVEL,
) -> Standings:
    """Standings from seat rows (every seat of every match) and fault counts by bot and kind."""
    if cluster_by not in ("group", "seed"):
        raise ValueError(f"cluster_by must be 'group' or 'seed', not {cluster_by!r}")
    bots, pairs, matches, hands, groups = totals_from_rows(rows, cluster_by)
    return assemble(bots, pairs, matches, hands, groups, faults, cluster_by=cluster_by, name=name, level=level)


# ------------------------------------------------------------------------------------------------ the store
# A store keeps its totals as it records each match (tournaments.totals): standings read one row per bot and per
# pair, whatever the store's size.  A store of an older schema, not yet opened for writing by this mjref, is summed
# by SQLite instead (one pass for the bots' cluster moments, one for the pairs'): the same numbers, slower.

_BEST = "MAX(m.total1, m.total2, m.total3, m.total4)"
_FIRST = (f"CASE WHEN s.points = {_BEST} THEN 1.0 / ((m.total1 = {_BEST}) + (m.total2 = {_BEST}) "
          f"+ (m.total3 = {_BEST}) + (m.total4 = {_BEST})) ELSE 0.0 END")

_BOTS_SQL = f"""
WITH c AS (
    SELECT s.bot AS bot, {{key}} AS k, COUNT(DISTINCT s.match_id) AS matches, SUM(s.hands) AS n,
           SUM(s.points) AS y, SUM(s.rank) AS ry, COUNT(*) AS rn, SUM({_FIRST}) AS fy,
           SUM(s.wins) AS wins, SUM(s.self_draws) AS self_draws, SUM(s.deal_ins) AS deal_ins, SUM(s.faults) AS faults,
           SUM(s.answers) AS answers, SUM(s.answer_seconds) AS answer_seconds, MAX(s.max_answer_seconds) AS mx
    FROM seats s JOIN matches m ON m.id = s.match_id GROUP BY s.bot, k
)
SELECT bot, SUM(matches), SUM(n), SUM(y), SUM(wins), SUM(self_draws), SUM(deal_ins), SUM(faults), SUM(answers),
       SUM(answer_seconds), MAX(mx),
       SUM(n > 0), SUM(CASE WHEN n > 0 THEN y END), SUM(n), SUM(CASE WHEN n > 0 THEN y * y END),
       SUM(y * n), SUM(n * n),
       COUNT(*), SUM(ry), SUM(rn), SUM(ry * ry), SUM(ry * rn), SUM(rn * rn),
       SUM(fy * fy), SUM(fy * rn), SUM(fy),
       SUM(CASE WHEN n > 0 THEN y * 1.0 * y * y END), SUM(CASE WHEN n > 0 THEN y * 1.0 * y * n END),
       SUM(y * 1.0 * n * n), SUM(n * 1.0 * n * n)
FROM c GROUP BY bot
"""

_PAIRS_SQL = """
WITH mb AS MATERIALIZED (
    SELECT s.match_id AS match_id, s.bot AS bot, AVG(s.points) AS p, MAX(m.hands) AS h, {key} AS k
    FROM seats s JOIN matches m ON m.id = s.match_id GROUP BY s.match_id, s.bot
), c AS (
    SELECT a.bot AS a, b.bot AS b, a.k AS k, COUNT(*) AS matches, SUM(a.h) AS n, SUM(a.p - b.p) AS y
    FROM mb a JOIN mb b ON a.match_id = b.match_id AND a.bot <> b.bot GROUP BY a.bot, b.bot, a.k
)
SELECT a, b, SUM(matches), SUM(n), SUM(n > 0), SUM(CASE WHEN n > 0 THEN y END), SUM(n),
       SUM(CASE WHEN n > 0 THEN y * y END), SUM(y * n), SUM(n * n),
       SUM(CASE WHEN n > 0 THEN y * 1.0 * y * y END), SUM(CASE WHEN n > 0 THEN y * 1.0 * y * n END),
       SUM(y * 1.0 * n * n), SUM(n * 1.0 * n * n)
FROM c GROUP BY a, b
"""

_KEYS = {"group": "m.grp", "seed": "m.seed"}


def _num0(x: Any) -> float:
    return float(x) if x is not None else 0.0


def kept_totals(con: sqlite3.Connection, cluster_by: ClusterBy = "group", *, pairs_too: bool = True) -> tuple[
        list[BotTotals], list[PairTotals], int, int, int]:
    """Bot and pair totals, matches, hands and clusters of a store, from the totals it keeps at commit (one row per
    bot and pair; call inside a transaction).  The scaled sums (:mod:`tournaments.totals`) are scaled back here.
    ``pairs_too`` False: no pair totals (100 bots have 4,950 pairs: most of the time standings take)."""
    rs, fs, ps = agg.RANK_SCALE, agg.FIRST_SCALE, agg.PAIR_SCALE
    moments: dict[str, Any] = {str(r["bot"]): r for r in con.execute(
        "SELECT * FROM agg_bot_moments WHERE kind = ?", (cluster_by,))}
    bot_cubes, pair_cubes = _kept_cubes(con, cluster_by, pairs_too)
    bots = []
    for t in con.execute("SELECT * FROM agg_bot ORDER BY bot"):
        m = moments.get(str(t["bot"]))
        if m is None:
            raise StoreError(f"bot {t['bot']!r} has totals but no cluster moments")
        bots.append(BotTotals(
            str(t["bot"]), int(t["matches"]), int(t["hands"]), t["points"], int(t["wins"]), int(t["self_draws"]),
            int(t["deal_ins"]), int(t["faults"]), int(t["answers"]), float(t["answer_seconds"]),
            float(t["max_answer_seconds"]),
            Moments(int(m["g"]), m["sy"], m["sn"], m["syy"], m["syn"], m["snn"], bot_cubes.get(str(t["bot"]))),
            Moments(int(m["rg"]), m["ry"] / rs, m["rn"], m["ryy"] / rs**2, m["ryn"] / rs, m["rnn"]),
            Moments(int(m["rg"]), m["fy"] / fs, m["rn"], m["fyy"] / fs**2, m["fyn"] / fs, m["rnn"]),
        ))
    pairs = []
    for p in con.execute("SELECT * FROM agg_pair WHERE kind = ? ORDER BY a, b", (cluster_by,)) if pairs_too else ():
        for a, b, sign in ((p["a"], p["b"], 1), (p["b"], p["a"], -1)):
            c = pair_cubes.get((str(p["a"]), str(p["b"])))
            pairs.append(PairTotals(str(a), str(b), int(p["matches"]), int(p["hands"]), Moments(
                int(p["g"]), sign * p["sy"] / ps, p["sn"], p["syy"] / ps**2, sign * p["syn"] / ps, p["snn"],
                None if c is None else (sign * c[0], c[1], sign * c[2], c[3]))))
    row = con.execute("SELECT matches, hands, group_clusters, seed_clusters FROM agg_store").fetchone()
    if row is None:
        return bots, pairs, 0, 0, 0
    return bots, pairs, int(row[0]), int(row[1]), int(row[2] if cluster_by == "group" else row[3])


def _cubes(sums: Sequence[Any]) -> tuple[float, float, float, float]:
    y3, y2n, yn2, n3 = (_num0(x) for x in sums)
    return y3, y2n, yn2, n3


def _kept_cubes(con: sqlite3.Connection, cluster_by: ClusterBy, pairs_too: bool = True) -> tuple[
        dict[str, tuple[float, float, float, float]], dict[tuple[str, str], tuple[float, float, float, float]]]:
    """The bots' (points per cluster) and the pairs' (with ``pairs_too``) third moments, from the kept clusters,
    when there are at most :data:`CUBES_MAX_CLUSTERS` of them (else none: the skewness is then unknown)."""
    row = con.execute("SELECT group_clusters, seed_clusters FROM agg_store").fetchone()
    if row is None or int(row[0 if cluster_by == "group" else 1]) > CUBES_MAX_CLUSTERS:
        return {}, {}
    ps = float(agg.PAIR_SCALE)
    bots = {str(r[0]): (float(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in con.execute(
        "SELECT bot, SUM(y * 1.0 * y * y), SUM(y * 1.0 * y * n), SUM(y * 1.0 * n * n), SUM(n * 1.0 * n * n) "
        "FROM agg_bot_cluster WHERE kind = ? AND n <> 0 GROUP BY bot", (cluster_by,))}
    rows = con.execute(
        "SELECT a, b, SUM(y * 1.0 * y * y), SUM(y * 1.0 * y * n), SUM(y * 1.0 * n * n), SUM(n * 1.0 * n * n) "
        "FROM agg_pair_cluster WHERE kind = ? AND n <> 0 GROUP BY a, b", (cluster_by,)) if pairs_too else ()
    pairs = {(str(r[0]), str(r[1])): (float(r[2]) / ps**3, float(r[3]) / ps**2, float(r[4]) / ps, float(r[5]))
             for r in rows}
    return bots, pairs


def read_totals(con: sqlite3.Connection, cluster_by: ClusterBy = "group") -> tuple[
        list[BotTotals], list[PairTotals], int, int, int]:
    """Bot and pair totals, matches, hands and clusters of a store, summed by SQLite over every match (one
    snapshot: call inside a transaction).  For a store without totals, and to check them."""
    key = _KEYS[cluster_by]
    bots = []
    for r in con.execute(_BOTS_SQL.format(key=key)):
        (bot, matches, hands, points, wins, sd, di, faults, answers, asec, mx,
         g, sy, sn, syy, syn, snn, rg, rsy, rsn, rsyy, rsyn, rsnn, fyy, fyn, fy, *cubes) = tuple(r)
        bots.append(BotTotals(
            str(bot), int(matches), int(hands or 0), points if isinstance(points, int) else _num0(points),
            int(wins or 0), int(sd or 0), int(di or 0), int(faults or 0), int(answers or 0), _num0(asec), _num0(mx),
            Moments(int(g or 0), _num0(sy), _num0(sn), _num0(syy), _num0(syn), _num0(snn), _cubes(cubes)),
            Moments(int(rg), _num0(rsy), _num0(rsn), _num0(rsyy), _num0(rsyn), _num0(rsnn)),
            Moments(int(rg), _num0(fy), _num0(rsn), _num0(fyy), _num0(fyn), _num0(rsnn)),
        ))
    pairs = []
    for r in con.execute(_PAIRS_SQL.format(key=key)):
        a, b, matches, hands, g, sy, sn, syy, syn, snn, *cubes = tuple(r)
        pairs.append(PairTotals(str(a), str(b), int(matches), int(hands or 0),
                                Moments(int(g or 0), _num0(sy), _num0(sn), _num0(syy), _num0(syn), _num0(snn),
                                        _cubes(cubes))))
    m = con.execute(f"SELECT COUNT(*), SUM(hands), COUNT(DISTINCT {_KEYS[cluster_by][2:]}) FROM matches").fetchone()
    return bots, pairs, int(m[0]), int(m[1] or 0), int(m[2])


def _identities(meta_identity: str | None) -> dict[str, str]:
    """Each process bot's short identity (a fingerprint of its files), from the store's identity."""
    if not meta_identity:
        return {}
    try:
        files = json.loads(meta_identity).get("files") or {}
        return {bot: short_identity(f) for bot, f in files.items() if isinstance(f, dict)}
    except (json.JSONDecodeError, AttributeError, TypeError):
        return {}


def _trust_memory(meta_identity: str | None) -> list[str] | None:
    """``config.trusted_memory`` of the store's identity (None for a store that holds none, or a damaged one)."""
    try:
        identity = json.loads(meta_identity) if meta_identity else None
    except json.JSONDecodeError:
        return None
    return trusted_memory(identity) if isinstance(identity, dict) else None


_NUMBER_COLUMNS = ("points", "rank", "hands", "wins", "self_draws", "deal_ins", "faults", "answers", "answer_seconds",
                   "max_answer_seconds")


def _whole_columns(con: sqlite3.Connection, table: str) -> set[str]:
    """The columns of ``table`` declared INTEGER: SQLite keeps a real such as 1e308 there as given, and a count that
    large overflowed the statistics (a traceback), so a cell there must be a whole number."""
    return {str(r[1]) for r in con.execute(f"PRAGMA table_info({table})") if str(r[2]).upper() == "INTEGER"}


def _not_a_number(column: str, whole: set[str]) -> str:
    """The SQL test of a cell that ``column`` cannot hold."""
    return f"typeof({column}) NOT IN ('integer'{'' if column in whole else ', ' + repr('real')})"


def _check_numbers(con: sqlite3.Connection, store_path: Path) -> None:
    """SQLite keeps whatever a cell is given and sums text as 0: a seat cell that is not a number (a store edited by
    hand, or damaged) is refused naming the match and the column, instead of standings that are silently wrong."""
    whole = _whole_columns(con, "seats")
    for column in _NUMBER_COLUMNS:
        bad = con.execute(f"SELECT match_id, position, {column} FROM seats "
                          f"WHERE {_not_a_number(column, whole)} LIMIT 1").fetchone()
        if bad is not None:
            raise StoreError(f"{store_path}: match {bad[0]!r}, seat {bad[1]}: column {column!r} holds {bad[2]!r}, "
                             f"not {'a whole' if column in whole else 'a'} number; the store is damaged")


TOTAL_LIMIT = 1e60  # no kept total comes near: a cluster's scaled points squared, over a million clusters, ~1e20
# What the moments of any matches obey (n counts hands or matches, so Σn, Σn², Σy² are never negative, and Σn² is 0
# only when Σn is): a row that breaks one (a store edited by hand) divided by zero or overflowed in the statistics.
_MOMENT_RULES: dict[str, tuple[str, ...]] = {
    "agg_bot_moments": ("g < 0", "rg < 0", "sn < 0", "rn < 0", "syy < 0", "ryy < 0", "fyy < 0", "snn < 0",
                        "rnn < 0", "(snn = 0) <> (sn = 0)", "(rnn = 0) <> (rn = 0)"),
    "agg_pair": ("g < 0", "sn < 0", "syy < 0", "snn < 0", "(snn = 0) <> (sn = 0)"),
}


RECOUNT_ADVICE = "the store is damaged (`mjref standings --recount` counts its totals again from its matches)"


def check_total_numbers(con: sqlite3.Connection, store_path: Path, damaged: str = RECOUNT_ADVICE) -> None:
    """As :func:`_check_numbers`, for the totals standings read (a handful of rows): numbers, of a size sums of
    points reach, and moments that some matches could have (``_MOMENT_RULES``).  ``damaged`` ends each message:
    the advice to recount, or (from the recount itself, :meth:`tournaments.store.Store.recount`) what else."""
    for table, columns in agg.NUMBER_COLUMNS.items():
        whole = _whole_columns(con, table)
        for column in columns:
            bad = con.execute(f"SELECT {column} FROM {table} "  # noqa: S608 - fixed names
                              f"WHERE {_not_a_number(column, whole)} LIMIT 1").fetchone()
            if bad is not None:
                raise StoreError(f"{store_path}: table {table}: column {column!r} holds {bad[0]!r:.60}, not "
                                 f"{'a whole' if column in whole else 'a'} number; {damaged}")
            big = con.execute(f"SELECT {column} FROM {table} WHERE {column} > {TOTAL_LIMIT} "  # noqa: S608
                              f"OR {column} < -{TOTAL_LIMIT} LIMIT 1").fetchone()
            if big is not None:
                raise StoreError(f"{store_path}: table {table}: column {column!r} holds {big[0]!r:.60}, larger than "
                                 f"any matches' totals; {damaged}")
        for rule in _MOMENT_RULES.get(table, ()):
            if con.execute(f"SELECT 1 FROM {table} WHERE {rule} LIMIT 1").fetchone() is not None:  # noqa: S608
                raise StoreError(f"{store_path}: table {table}: a row has {rule}, which no matches give; {damaged}")


def compute_standings(store_path: Path, *, cluster_by: ClusterBy = "group", head_to_head: bool = True) -> Standings:
    """Standings and (unless ``head_to_head`` is False) head-to-head of the matches in a results store (raises
    ``StoreError`` naming the file)."""
    with snapshot(Path(store_path)) as con:
        return standings_in(con, Path(store_path), cluster_by=cluster_by, head_to_head=head_to_head)


@contextmanager
def snapshot(store_path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a store in one read transaction: everything read through it is one state of the
    store, even while a tournament is writing (``StoreError`` naming the file)."""
    con = connect(store_path, readonly=True)
    try:
        try:
            con.execute("BEGIN")
        except sqlite3.Error as exc:
            raise StoreError(f"{store_path}: not an mjref results store, or a damaged one ({exc})") from None
        yield con
    finally:
        con.close()


def standings_in(con: sqlite3.Connection, store_path: Path, *, cluster_by: ClusterBy = "group",
                 head_to_head: bool = True) -> Standings:
    """:func:`compute_standings` read through ``con``, in the caller's transaction (:func:`snapshot`, or a recount's
    own: ``tournaments.store.recount``), so that what else the caller reads there is of the same state."""
    if cluster_by not in ("group", "seed"):
        raise ValueError(f"cluster_by must be 'group' or 'seed', not {cluster_by!r}")
    try:
        faults: dict[str, dict[str, int]] = defaultdict(dict)
        if has_totals(con):
            check_total_numbers(con, store_path)
            bots, pairs, matches, hands, groups = kept_totals(con, cluster_by, pairs_too=head_to_head)
            faults.update(agg.fault_counts(con))
        else:
            _check_numbers(con, store_path)
            bots, pairs, matches, hands, groups = read_totals(con, cluster_by)
            for bot, kind, n in con.execute("SELECT bot, kind, COUNT(*) FROM faults GROUP BY bot, kind"):
                faults[str(bot)][str(kind)] = int(n)
        meta = {str(k): v for k, v in con.execute("SELECT key, value FROM meta WHERE key IN ('name', 'identity')")}
    except StoreError:
        raise
    except (sqlite3.Error, ValueError, TypeError) as exc:
        raise StoreError(f"{store_path}: not an mjref results store, or a damaged one ({exc})") from None
    return assemble(bots, pairs, matches, hands, groups, faults, cluster_by=cluster_by,
                    # escaped: names are printable when a tournament is made, so only an edited store changes here
                    name=printable(str(meta["name"])) if meta.get("name") is not None else None,
                    identities=_identities(meta.get("identity")), trust_memory=_trust_memory(meta.get("identity")))


# ------------------------------------------------------------------------------------------------ renderers


def _pair(e: Estimate) -> list[float] | None:
    ci = e.ci95
    return None if ci is None else [ci[0], ci[1]]


def to_json(standings: Standings, ratings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Plain data (full precision; ``None`` where a number is undefined); bots best first.  ``ratings``: a league's
    (``tournaments.league.Rating`` by name), given to each bot as ``rating`` (mu, sigma, ordinal, matches)."""
    data = _to_json(standings)
    if ratings is not None:
        data["rated"] = True
        for b in data["bots"]:
            r = ratings.get(b["name"])
            b["rating"] = None if r is None else {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal,
                                                  "matches": r.matches}
    return data


def _to_json(standings: Standings) -> dict[str, Any]:
    return {
        "name": standings.name,
        "matches": standings.matches,
        "hands": standings.hands,
        "groups": standings.groups,
        "cluster_by": standings.cluster_by,
        "trust_memory": standings.trust_memory is not None,
        "bots": [
            {
                "name": b.name, "dummy": b.dummy, "matches": b.matches, "hands": b.hands, "groups": b.groups,
                "points": b.points, "mean": b.mean.value, "se": b.mean.se, "ci95": _pair(b.mean),
                "avg_rank": b.rank.value, "avg_rank_ci95": _pair(b.rank), "first_rate": b.first_rate.value,
                "first_rate_ci95": _pair(b.first_rate), "win_rate": b.win_rate, "self_draw_rate": b.self_draw_rate,
                "deal_in_rate": b.deal_in_rate, "fault_count": b.fault_count, "faults": dict(b.faults),
                "mean_answer_ms": b.mean_answer_ms, "max_answer_ms": b.max_answer_ms, "identity": b.identity,
                "ci95_caveat": CAVEATS.get(b.mean.caveat or ""), "skew": b.mean.skew,
            }
            for b in standings.bots
        ],
        "head_to_head": [
            {"a": h.a, "b": h.b, "matches": h.matches, "hands": h.hands, "groups": h.groups,
             "mean_diff": h.diff.value, "se": h.diff.se, "ci95": _pair(h.diff),
             "ci95_caveat": CAVEATS.get(h.diff.caveat or ""), "skew": h.diff.skew}
            for h in standings.head_to_head
        ],
        "notes": standings.notes,
    }


CSV_COLUMNS = (
    "name", "dummy", "matches", "hands", "groups", "points", "mean", "se", "ci95_lo", "ci95_hi", "avg_rank",
    "avg_rank_ci95_lo", "avg_rank_ci95_hi", "first_rate", "win_rate", "self_draw_rate", "deal_in_rate", "faults",
    "faults_by_kind", "mean_answer_ms", "max_answer_ms", "ci95_caveat",
)


def _cell(x: Any) -> Any:
    return "" if x is None else x


def to_csv(standings: Standings) -> str:
    """One row per bot, best first; undefined numbers are empty cells; kinds of fault as ``kind=n;kind=n``; the
    caveat of the mean's interval (``ci95_caveat``) last."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for b in standings.bots:
        ci, rci = b.mean.ci95 or (None, None), b.rank.ci95 or (None, None)
        w.writerow([_cell(x) for x in (
            b.name, int(b.dummy), b.matches, b.hands, b.groups, b.points, b.mean.value, b.mean.se, ci[0], ci[1],
            b.rank.value, rci[0], rci[1], b.first_rate.value, b.win_rate, b.self_draw_rate, b.deal_in_rate,
            b.fault_count, ";".join(f"{k}={n}" for k, n in b.faults.items()), b.mean_answer_ms, b.max_answer_ms,
            CAVEATS.get(b.mean.caveat or ""),
        )])
    return buf.getvalue()


def fmt_num(x: float | None, digits: int = 1, sign: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def fmt_interval(e: Estimate, digits: int = 1, sign: bool = False) -> str:
    """``12.3 ± 4.5``; ``12.3 (too few groups)`` below :data:`MIN_GROUPS` groups; ``n/a`` without a value."""
    if e.value is None:
        return "n/a"
    hw = e.half_width
    if hw is None:
        return f"{fmt_num(e.value, digits, sign)} (too few groups)"
    note = f" {MARKS[e.caveat]}" if e.caveat else ""
    return f"{fmt_num(e.value, digits, sign)} ± {fmt_num(hw, digits)}{note}"


def fmt_pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def fmt_faults(b: BotStanding) -> str:
    if not b.fault_count and not b.faults:
        return "0"
    kinds = ", ".join(f"{k} {n}" for k, n in b.faults.items())
    return f"{b.fault_count} ({kinds})" if kinds else str(b.fault_count)


def display_name(b: BotStanding) -> str:
    return f"{b.name} (dummy)" if b.dummy else b.name


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def to_markdown(standings: Standings, *, head_to_head: bool = True) -> str:
    """A GitHub-flavoured markdown report: the standings table, the head-to-head matrix, and the notes."""
    title = f"## Standings{': ' + md_text(standings.name) if standings.name else ''}{standings.mark}"
    lines = [title, "",
             (f"{_count(standings.matches, 'match', 'matches')}, {_count(standings.hands, 'hand')}, "
              f"{_count(standings.groups, standings.cluster_word)}."), ""]
    if not standings.bots:
        return "\n".join([*lines, "No finished matches yet.", ""])
    head = ("#", "bot", "matches", "hands", "points", "mean/hand ± 95%", "avg rank ± 95%", "1st %", "win %",
            "self-draw %", "deal-in %", "faults", "answer ms mean/max")
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---:" if h not in ("bot", "faults") else "---" for h in head) + "|")
    for i, b in enumerate(standings.bots, start=1):
        cells = (str(i), md_text(display_name(b)), str(b.matches), str(b.hands), f"{b.points:g}",
                 fmt_interval(b.mean, 1, sign=True), fmt_interval(b.rank, 2), fmt_pct(b.first_rate.value),
                 fmt_pct(b.win_rate), fmt_pct(b.self_draw_rate), fmt_pct(b.deal_in_rate), md_text(fmt_faults(b)),
                 f"{fmt_num(b.mean_answer_ms, 2)} / {fmt_num(b.max_answer_ms, 2)}")
        lines.append("| " + " | ".join(cells) + " |")
    if head_to_head and standings.head_to_head:
        names = [b.name for b in standings.bots]
        cell = {(h.a, h.b): h for h in standings.head_to_head}
        lines += ["", "### Head-to-head", "",
                  ("Row minus column, points per hand over the matches where both sat, ± 95% interval; "
                   "**bold** when the interval excludes 0."), ""]
        lines.append("| | " + " | ".join(md_text(n) for n in names) + " |")
        lines.append("|---|" + "|".join("---:" for _ in names) + "|")
        for a in names:
            row = []
            for other in names:
                h = cell.get((a, other))
                if a == other:
                    row.append("—")
                elif h is None:
                    row.append("")
                else:
                    text = fmt_interval(h.diff, 1, sign=True)
                    row.append(f"**{text}**" if h.diff.excludes_zero else text)
            lines.append(f"| {md_text(a)} | " + " | ".join(row) + " |")
    lines += ["", *(f"- {md_text(n)}" for n in standings.notes), ""]  # a note may quote names
    return "\n".join(lines)


__all__ = [
    "CSV_COLUMNS", "MIN_GROUPS", "clopper_pearson", "BotStanding", "Estimate", "HeadToHead", "SeatRow", "Standings",
    "StoreError", "CAVEATS", "MARKS", "SKEW_MIN_GROUPS", "SKEWED_MIN_GROUPS", "interval_caveat", "build_standings",
    "cluster_ratio",
    "compute_standings", "snapshot", "standings_in", "fmt_interval", "fmt_num", "fmt_pct",
    "BotTotals", "Moments", "PairTotals", "assemble", "kept_totals", "ratio_estimate", "read_totals",
    "totals_from_rows",
    "t_quantile", "to_csv", "to_json", "to_markdown",
]
