"""Statistics over a results store: standings and head-to-head numbers that come with honest intervals.

Why a module of its own: a table of means says little unless it also says how sure we are.  Results of the matches
of one *duplicate group* (one table of bots on one seed, played in each seating) share their walls, so they are not
independent; the group is the unit of independence.  Every interval here is therefore **clustered by duplicate
group**:

* a bot's mean points per hand is the ratio ``sum(points) / sum(hands)`` over its seats;
* its variance is the cluster-robust (linearised ratio-estimator, "CR1") formula over the groups ``g`` it played in,
  with ``Y_g`` its points and ``N_g`` its hands in the group and ``r`` the ratio::

      var(r) = G / (G - 1) * sum_g (Y_g - r * N_g) ** 2 / (sum_g N_g) ** 2

  (with equal ``N_g`` this is exactly ``s**2 / G`` over the per-group means, the textbook standard error);
* the 95% interval is ``r +- t(0.975, G - 1) * se``, Student's t with ``G - 1`` degrees of freedom, because the
  number of groups is often small.  Below :data:`MIN_GROUPS` groups there is no interval: it is ``None`` (null in
  JSON, "too few groups" in text).  With 2 groups ``t`` is 12.7 and the interval says nothing ("avg rank 1.62 ±
  7.94"); when both groups happen to agree it is a false "± 0.00".

The t quantile is computed here without scipy (:func:`t_quantile`): exactly, for integer degrees of freedom, by
inverting the closed-form t distribution (Abramowitz & Stegun 26.7.3-4); for very large degrees of freedom by the
Cornish-Fisher expansion (A&S 26.7.5).

Everything is a pure function of rows: :func:`compute_standings` reads the store (read-only, in one transaction)
into :class:`SeatRow` s and calls :func:`build_standings`, which tests and simulations can call directly.  The
renderers (:func:`to_json`, :func:`to_csv`, :func:`to_markdown`) are plain text; the rich table lives with the
``mjref standings`` command.  See docs/statistics.md for what each number means.
"""

from __future__ import annotations

import csv
import io
import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, Literal

from .schedule import DUMMY_PREFIX
from .store import StoreError, connect

LEVEL = 0.95
MIN_GROUPS = 5
"""The fewest groups (clusters) an interval is given for; below it the text says "too few groups" (docs/statistics.md).
At 5 groups the t interval is checked to cover 95% of the time on simulated tournaments."""
ClusterBy = Literal["group", "seed"]

# ------------------------------------------------------------------------------------------------ t quantile

_EXACT_DF_LIMIT = 2000  # above this, the Cornish-Fisher expansion errs by < 1e-12


def _t_two_sided(t: float, df: int) -> float:
    """``P(|T| < t)`` for ``t >= 0`` and integer ``df >= 1`` (Abramowitz & Stegun 26.7.3 and 26.7.4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * c2
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    c = math.cos(theta)
    term = total = c
    for k in range(1, (df - 1) // 2):
        term *= (2 * k) / (2 * k + 1) * c2
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
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
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


# ------------------------------------------------------------------------------------------------ estimates


@dataclass(frozen=True, slots=True)
class Estimate:
    """A ratio estimate with its cluster-robust standard error and 95% interval (``None`` when undefined)."""

    value: float | None
    se: float | None
    lo: float | None
    hi: float | None
    clusters: int

    @property
    def ci95(self) -> tuple[float, float] | None:
        return None if self.lo is None or self.hi is None else (self.lo, self.hi)

    @property
    def half_width(self) -> float | None:
        return None if self.lo is None or self.hi is None else (self.hi - self.lo) / 2

    @property
    def excludes_zero(self) -> bool:
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)


def cluster_ratio(clusters: Iterable[tuple[float, float]], level: float = LEVEL,
                  min_groups: int = MIN_GROUPS) -> Estimate:
    """``sum(y) / sum(n)`` over clusters ``(y, n)``, with the CR1 ratio-estimator SE and a t interval.

    Clusters with ``n == 0`` carry no information and are left out (they would only inflate ``G``).  The SE needs
    two clusters; the interval needs ``min_groups`` (at least 2).
    """
    pairs = [(float(y), float(n)) for y, n in clusters if n]
    g = len(pairs)
    total_n = math.fsum(n for _, n in pairs)
    if g == 0 or total_n == 0:
        return Estimate(None, None, None, None, g)
    r = math.fsum(y for y, _ in pairs) / total_n
    if g < 2:
        return Estimate(r, None, None, None, g)
    ss = math.fsum((y - r * n) ** 2 for y, n in pairs)
    se = math.sqrt(g / (g - 1) * ss) / total_n
    if g < max(min_groups, 2):
        return Estimate(r, se, None, None, g)
    t = t_quantile(0.5 + level / 2, g - 1)
    return Estimate(r, se, r - t * se, r + t * se, g)


# ------------------------------------------------------------------------------------------------ rows and results


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat of one match, as the store's ``seats`` table joined with its match's group and seed."""

    match_id: str
    group: str
    seed: int
    position: int
    bot: str
    points: float
    rank: float
    hands: int
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    faults: int = 0
    answers: int = 0
    answer_seconds: float = 0.0
    max_answer_seconds: float = 0.0


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

    @property
    def cluster_word(self) -> str:
        return "duplicate group" if self.cluster_by == "group" else "seed"

    @property
    def notes(self) -> list[str]:
        w = self.cluster_word
        out = [f"95% intervals are clustered by {w} (Student's t with {w}s - 1 degrees of freedom)."]
        short = [b.name for b in self.bots if b.hands and b.mean.ci95 is None]
        if short:
            out.append(f"no interval for {', '.join(short)}: an interval needs results from at least {MIN_GROUPS} "
                       f"{w}s (shown as 'too few groups'; null in JSON). Play more seeds.")
        if any(b.dummy for b in self.bots):
            out.append(f"bots named {DUMMY_PREFIX}-* are dummies that filled empty seats, not participants.")
        return out


def is_dummy(name: str) -> bool:
    return name.startswith(f"{DUMMY_PREFIX}-")


def _first_credit(points: Sequence[float], mine: float) -> float:
    """1 if ``mine`` is the unique best total of the match, 1/k if k seats tie for the best, else 0."""
    best = max(points)
    return 1.0 / sum(1 for p in points if p == best) if mine == best else 0.0


def _rate(num: float, den: float) -> float | None:
    return num / den if den else None


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
    faults = faults or {}
    by_match: dict[str, list[SeatRow]] = defaultdict(list)
    for row in rows:
        by_match[row.match_id].append(row)

    def key(row: SeatRow) -> str:
        return row.group if cluster_by == "group" else str(row.seed)

    match_hands = {m: max(r.hands for r in rs) for m, rs in by_match.items()}
    clusters_all = {key(rs[0]) for rs in by_match.values()}

    # Per bot: sums, and per cluster (points, hands), (rank sum, seats), (first credit, seats).
    acc: dict[str, dict[str, Any]] = {}
    for match_id, rs in by_match.items():
        totals = [r.points for r in rs]
        for r in rs:
            a = acc.setdefault(r.bot, {
                "matches": set(), "hands": 0, "points": 0, "wins": 0, "self_draws": 0, "deal_ins": 0,
                "faults": 0, "answers": 0, "answer_seconds": 0.0, "max_answer_seconds": 0.0,
                "pts": defaultdict(lambda: [0.0, 0.0]), "rank": defaultdict(lambda: [0.0, 0.0]),
                "first": defaultdict(lambda: [0.0, 0.0]),
            })
            a["matches"].add(match_id)
            a["hands"] += r.hands
            a["points"] += r.points
            a["wins"] += r.wins
            a["self_draws"] += r.self_draws
            a["deal_ins"] += r.deal_ins
            a["faults"] += r.faults
            a["answers"] += r.answers
            a["answer_seconds"] += r.answer_seconds
            a["max_answer_seconds"] = max(a["max_answer_seconds"], r.max_answer_seconds)
            k = key(r)
            a["pts"][k][0] += r.points
            a["pts"][k][1] += r.hands
            a["rank"][k][0] += r.rank
            a["rank"][k][1] += 1
            a["first"][k][0] += _first_credit(totals, r.points)
            a["first"][k][1] += 1

    bots: list[BotStanding] = []
    for bot, a in acc.items():
        bots.append(BotStanding(
            name=bot, dummy=is_dummy(bot), matches=len(a["matches"]), hands=a["hands"], points=a["points"],
            mean=cluster_ratio(a["pts"].values(), level), rank=cluster_ratio(a["rank"].values(), level),
            first_rate=cluster_ratio(a["first"].values(), level),
            win_rate=_rate(a["wins"], a["hands"]), self_draw_rate=_rate(a["self_draws"], a["hands"]),
            deal_in_rate=_rate(a["deal_ins"], a["hands"]), wins=a["wins"], self_draws=a["self_draws"],
            deal_ins=a["deal_ins"], fault_count=a["faults"], faults=dict(sorted(faults.get(bot, {}).items())),
            answers=a["answers"],
            mean_answer_ms=_rate(1000 * a["answer_seconds"], a["answers"]),
            max_answer_ms=1000 * a["max_answer_seconds"] if a["answers"] else None,
        ))
    bots.sort(key=lambda b: (b.mean.value is None, -(b.mean.value or 0.0), b.name))

    # Head-to-head: per match, each bot's mean points over its seats there (one seat, unless a dummy fills two).
    order = {b.name: i for i, b in enumerate(bots)}
    pair: dict[tuple[str, str], dict[str, Any]] = {}
    for match_id, rs in by_match.items():
        seat_points: dict[str, list[float]] = defaultdict(list)
        for r in rs:
            seat_points[r.bot].append(r.points)
        mean_points = {b: math.fsum(p) / len(p) for b, p in seat_points.items()}
        hands = match_hands[match_id]
        k = key(rs[0])
        for a_name, a_pts in mean_points.items():
            for b_name, b_pts in mean_points.items():
                if a_name == b_name:
                    continue
                h = pair.setdefault((a_name, b_name), {"matches": 0, "hands": 0,
                                                        "cl": defaultdict(lambda: [0.0, 0.0])})
                h["matches"] += 1
                h["hands"] += hands
                h["cl"][k][0] += a_pts - b_pts
                h["cl"][k][1] += hands
    h2h = [HeadToHead(a, b, h["matches"], h["hands"], cluster_ratio(h["cl"].values(), level))
           for (a, b), h in pair.items()]
    h2h.sort(key=lambda x: (order[x.a], order[x.b]))

    return Standings(name=name, matches=len(by_match), hands=sum(match_hands.values()), groups=len(clusters_all),
                     cluster_by=cluster_by, bots=bots, head_to_head=h2h)


# ------------------------------------------------------------------------------------------------ the store

_SEATS_SQL = """
SELECT s.match_id, m.grp, m.seed, s.position, s.bot, s.points, s.rank, s.hands, s.wins, s.self_draws, s.deal_ins,
       s.faults, s.answers, s.answer_seconds, s.max_answer_seconds
FROM seats s JOIN matches m ON m.id = s.match_id
ORDER BY m.idx, m.id, s.position
"""


def read_rows(store_path: Path) -> tuple[list[SeatRow], dict[str, dict[str, int]], str | None]:
    """The seat rows, faults by bot and kind, and the tournament name, read in one read-only transaction."""
    try:
        con = connect(store_path, readonly=True)
    except sqlite3.Error as exc:  # e.g. a directory, or a file sqlite cannot open
        raise StoreError(f"{store_path}: not an mjref results store ({exc})") from None
    try:
        con.execute("BEGIN")  # one snapshot, even while a tournament is writing
        rows = [SeatRow(*r) for r in con.execute(_SEATS_SQL)]
        faults: dict[str, dict[str, int]] = defaultdict(dict)
        for bot, kind, n in con.execute("SELECT bot, kind, COUNT(*) FROM faults GROUP BY bot, kind"):
            faults[bot][kind] = int(n)
        row = con.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()
        con.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise StoreError(f"{store_path}: not an mjref results store ({exc})") from None
    finally:
        con.close()
    return rows, dict(faults), (row[0] if row else None)


def compute_standings(store_path: Path, *, cluster_by: ClusterBy = "group") -> Standings:
    """Standings and head-to-head of the matches in a results store (raises ``StoreError`` naming the file)."""
    rows, faults, name = read_rows(Path(store_path))
    return build_standings(rows, faults, cluster_by=cluster_by, name=name)


# ------------------------------------------------------------------------------------------------ renderers


def _pair(e: Estimate) -> list[float] | None:
    ci = e.ci95
    return None if ci is None else [ci[0], ci[1]]


def to_json(standings: Standings) -> dict[str, Any]:
    """Plain data (full precision; ``None`` where a number is undefined); bots best first."""
    return {
        "name": standings.name,
        "matches": standings.matches,
        "hands": standings.hands,
        "groups": standings.groups,
        "cluster_by": standings.cluster_by,
        "bots": [
            {
                "name": b.name, "dummy": b.dummy, "matches": b.matches, "hands": b.hands, "groups": b.groups,
                "points": b.points, "mean": b.mean.value, "se": b.mean.se, "ci95": _pair(b.mean),
                "avg_rank": b.rank.value, "avg_rank_ci95": _pair(b.rank), "first_rate": b.first_rate.value,
                "first_rate_ci95": _pair(b.first_rate), "win_rate": b.win_rate, "self_draw_rate": b.self_draw_rate,
                "deal_in_rate": b.deal_in_rate, "fault_count": b.fault_count, "faults": dict(b.faults),
                "mean_answer_ms": b.mean_answer_ms, "max_answer_ms": b.max_answer_ms,
            }
            for b in standings.bots
        ],
        "head_to_head": [
            {"a": h.a, "b": h.b, "matches": h.matches, "hands": h.hands, "groups": h.groups,
             "mean_diff": h.diff.value, "se": h.diff.se, "ci95": _pair(h.diff)}
            for h in standings.head_to_head
        ],
        "notes": standings.notes,
    }


CSV_COLUMNS = (
    "name", "dummy", "matches", "hands", "groups", "points", "mean", "se", "ci95_lo", "ci95_hi", "avg_rank",
    "avg_rank_ci95_lo", "avg_rank_ci95_hi", "first_rate", "win_rate", "self_draw_rate", "deal_in_rate", "faults",
    "faults_by_kind", "mean_answer_ms", "max_answer_ms",
)


def _cell(x: Any) -> Any:
    return "" if x is None else x


def to_csv(standings: Standings) -> str:
    """One row per bot, best first; undefined numbers are empty cells; kinds of fault as ``kind=n;kind=n``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for b in standings.bots:
        ci, rci = b.mean.ci95 or (None, None), b.rank.ci95 or (None, None)
        w.writerow([_cell(x) for x in (
            b.name, int(b.dummy), b.matches, b.hands, b.groups, b.points, b.mean.value, b.mean.se, ci[0], ci[1],
            b.rank.value, rci[0], rci[1], b.first_rate.value, b.win_rate, b.self_draw_rate, b.deal_in_rate,
            b.fault_count, ";".join(f"{k}={n}" for k, n in b.faults.items()), b.mean_answer_ms, b.max_answer_ms,
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
    return f"{fmt_num(e.value, digits, sign)} ± {fmt_num(hw, digits)}"


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


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def to_markdown(standings: Standings, *, head_to_head: bool = True) -> str:
    """A GitHub-flavoured markdown report: the standings table, the head-to-head matrix, and the notes."""
    title = f"## Standings{': ' + _md(standings.name) if standings.name else ''}"
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
        cells = (str(i), _md(display_name(b)), str(b.matches), str(b.hands), f"{b.points:g}",
                 fmt_interval(b.mean, 1, sign=True), fmt_interval(b.rank, 2), fmt_pct(b.first_rate.value),
                 fmt_pct(b.win_rate), fmt_pct(b.self_draw_rate), fmt_pct(b.deal_in_rate), _md(fmt_faults(b)),
                 f"{fmt_num(b.mean_answer_ms, 2)} / {fmt_num(b.max_answer_ms, 2)}")
        lines.append("| " + " | ".join(cells) + " |")
    if head_to_head and standings.head_to_head:
        names = [b.name for b in standings.bots]
        cell = {(h.a, h.b): h for h in standings.head_to_head}
        lines += ["", "### Head-to-head", "",
                  ("Row minus column, points per hand over the matches where both sat, ± 95% interval; "
                   "**bold** when the interval excludes 0."), ""]
        lines.append("| | " + " | ".join(_md(n) for n in names) + " |")
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
            lines.append(f"| {_md(a)} | " + " | ".join(row) + " |")
    lines += ["", *(f"- {n}" for n in standings.notes), ""]
    return "\n".join(lines)


__all__ = [
    "CSV_COLUMNS", "MIN_GROUPS", "BotStanding", "Estimate", "HeadToHead", "SeatRow", "Standings", "StoreError",
    "build_standings", "cluster_ratio", "compute_standings", "fmt_interval", "fmt_num", "fmt_pct", "read_rows",
    "t_quantile", "to_csv", "to_json", "to_markdown",
]
