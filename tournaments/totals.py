"""Totals kept at commit: what ``mjref standings`` and ``mjref report`` read, so neither reads every match.

Why a module of its own: summing every seat of a million-match store takes SQLite tens of seconds, and the store
only ever grows.  So each recorded match adds itself to small tables of sums in the very transaction that records
it (:meth:`tournaments.store.Store.record` calls :func:`add_matches`): the sums are never behind the matches, and a
``kill -9`` loses both or neither.  Standings then read one row per bot and per pair of bots, whatever the store's
size (:func:`tournaments.stats.compute_standings`).

The standings' intervals are clustered (docs/statistics.md): they need, per bot, the moments of its clusters
(``G``, ``Σy``, ``Σn``, ``Σy²``, ``Σyn``, ``Σn²`` over the duplicate groups, or over the seeds).  A cluster's sums
change as its matches arrive, so each cluster keeps its running ``(y, n)`` (``agg_bot_cluster``, ``agg_pair_cluster``)
and a match moves the moments by ``y_new² - y_old²`` and so on.  Both clusterings (``group`` and ``seed``) are kept,
so ``mjref standings --cluster seed`` is as quick.

Every sum is an exact integer, so the totals do not depend on the order the matches finished in (a resumed or
concurrent run gives the same standings, to the last digit, as one uninterrupted run): ranks are kept doubled (a
shared place is a half), first-place credit times 12 (a tie of k shares 1/k, k <= 4), and the head-to-head's
differences of mean points times 6 (a dummy's mean is over 1, 2 or 3 seats).  Answer seconds are the only float.

Tables (``agg_*``; schema 4 of :mod:`tournaments.store`)
--------------------------------------------------------
``agg_store``         one row: matches, hands, group_clusters, seed_clusters.
``agg_bot``           per bot: matches, hands, points, wins, self_draws, deal_ins, faults, answers,
                      answer_seconds, max_answer_seconds.
``agg_bot_cluster``   per clustering (``group``/``seed``), cluster key and bot: y (points), n (hands),
                      r (2 × rank sum), s (seats), f (12 × first-place credit).
``agg_bot_moments``   per clustering and bot: the moments of its clusters for points per hand (g, sy, sn, syy, syn,
                      snn), rank (rg, ry, rn, ryy, ryn, rnn) and first place (fy, fyy, fyn; its g, n as rank's).
``agg_pair_cluster``  per clustering, cluster key and pair a < b: y (6 × a's mean points minus b's, summed over
                      matches), n (hands).
``agg_pair``          per clustering and pair a < b: matches, hands and the moments (b against a: y negated).
``agg_faults``        per bot and kind of fault: how many.
``agg_hand_points``   per bot and points won or lost in one hand (settlement minus fault penalty): how many hands
                      (the report's histograms).
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RANK_SCALE = 2  # ranks are whole or halves
FIRST_SCALE = 12  # first-place credit is 1/k for a k-way tie, k in 1..4
PAIR_SCALE = 6  # a bot's mean points in a match are over 1, 2 or 3 seats
KINDS = ("group", "seed")

SCHEMA = """
CREATE TABLE IF NOT EXISTS agg_store (
    id INTEGER PRIMARY KEY CHECK (id = 1), matches INTEGER NOT NULL, hands INTEGER NOT NULL,
    group_clusters INTEGER NOT NULL, seed_clusters INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS agg_bot (
    bot TEXT PRIMARY KEY, matches INTEGER NOT NULL, hands INTEGER NOT NULL, points NOT NULL, wins INTEGER NOT NULL,
    self_draws INTEGER NOT NULL, deal_ins INTEGER NOT NULL, faults INTEGER NOT NULL, answers INTEGER NOT NULL,
    answer_seconds REAL NOT NULL, max_answer_seconds REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS agg_bot_cluster (
    kind TEXT NOT NULL, key TEXT NOT NULL, bot TEXT NOT NULL, y NOT NULL, n INTEGER NOT NULL, r NOT NULL,
    s INTEGER NOT NULL, f NOT NULL, PRIMARY KEY (kind, key, bot)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agg_bot_moments (
    kind TEXT NOT NULL, bot TEXT NOT NULL,
    g INTEGER NOT NULL, sy NOT NULL, sn NOT NULL, syy NOT NULL, syn NOT NULL, snn NOT NULL,
    rg INTEGER NOT NULL, ry NOT NULL, rn NOT NULL, ryy NOT NULL, ryn NOT NULL, rnn NOT NULL,
    fy NOT NULL, fyy NOT NULL, fyn NOT NULL, PRIMARY KEY (kind, bot)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agg_pair_cluster (
    kind TEXT NOT NULL, key TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, y NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kind, key, a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agg_pair (
    kind TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, matches INTEGER NOT NULL, hands INTEGER NOT NULL,
    g INTEGER NOT NULL, sy NOT NULL, sn NOT NULL, syy NOT NULL, syn NOT NULL, snn NOT NULL, PRIMARY KEY (kind, a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agg_faults (
    bot TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (bot, kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agg_hand_points (
    bot TEXT NOT NULL, points INTEGER NOT NULL, hands INTEGER NOT NULL, PRIMARY KEY (bot, points)
) WITHOUT ROWID;
"""

TABLES = ("agg_store", "agg_bot", "agg_bot_cluster", "agg_bot_moments", "agg_pair_cluster", "agg_pair",
          "agg_faults", "agg_hand_points")

# The columns standings sum: a cell that is not a number (a store edited by hand, or damaged) is refused by name.
NUMBER_COLUMNS: dict[str, tuple[str, ...]] = {
    "agg_store": ("matches", "hands", "group_clusters", "seed_clusters"),
    "agg_bot": ("matches", "hands", "points", "wins", "self_draws", "deal_ins", "faults", "answers",
                "answer_seconds", "max_answer_seconds"),
    "agg_bot_moments": ("g", "sy", "sn", "syy", "syn", "snn", "rg", "ry", "rn", "ryy", "ryn", "rnn", "fy", "fyy",
                        "fyn"),
    "agg_pair": ("matches", "hands", "g", "sy", "sn", "syy", "syn", "snn"),
    "agg_faults": ("n",),
    "agg_hand_points": ("points", "hands"),
}


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What the totals need of one match (from a ``MatchRecord``, or read back from the tables to migrate)."""

    group: str
    seed: int
    hands: int
    seat_rows: Sequence[Mapping[str, Any]]  # bot, points, rank, hands, wins, self_draws, deal_ins, faults, answers, …
    hand_points: Sequence[tuple[str, int]]  # (bot, points in one hand), one per seat and hand
    faults: Sequence[tuple[str, str]]  # (bot, kind), one per fault


def _first_credits(points: Sequence[Any]) -> list[int]:
    best = max(points)
    k = sum(1 for p in points if p == best)
    return [FIRST_SCALE // k if p == best else 0 for p in points]


def _scaled_mean(points: Sequence[Any]) -> Any:
    """``PAIR_SCALE`` × the mean: a whole number for whole points (1, 2 or 3 seats)."""
    scaled = PAIR_SCALE * sum(points)
    return scaled // len(points) if isinstance(scaled, int) and scaled % len(points) == 0 else scaled / len(points)


def _moment_deltas(old: tuple[Any, Any], new: tuple[Any, Any]) -> tuple[Any, Any, Any]:
    """How ``Σy²``, ``Σyn`` and ``Σn²`` move when one cluster goes from ``old`` (y, n) to ``new``."""
    (y0, n0), (y1, n1) = old, new
    return y1 * y1 - y0 * y0, y1 * n1 - y0 * n0, n1 * n1 - n0 * n0


def _add(into: list[Any], values: Sequence[Any]) -> None:
    for i, v in enumerate(values):
        into[i] += v


class _Batch:
    """The sums of some matches, gathered in Python and then added to the tables once per row they touch (a
    duplicate group's four matches move its cluster rows once)."""

    def __init__(self) -> None:
        self.matches = 0
        self.hands = 0
        self.bot: dict[str, list[Any]] = {}  # matches, hands, points, wins, self_draws, deal_ins, faults, answers,
        self.bot_max: dict[str, float] = {}  # answer_seconds; and max_answer_seconds
        self.bot_cluster: dict[tuple[str, str, str], list[Any]] = {}  # y, n, r, s, f
        self.pair_cluster: dict[tuple[str, str, str, str], list[Any]] = {}  # y, n, matches
        self.faults: Counter[tuple[str, str]] = Counter()
        self.hand_points: Counter[tuple[str, int]] = Counter()

    def add(self, m: MatchFacts) -> None:
        self.matches += 1
        self.hands += m.hands
        points = [r["points"] for r in m.seat_rows]
        keys = (("group", str(m.group)), ("seed", str(m.seed)))
        seen: dict[str, list[Any]] = {}
        for r, first in zip(m.seat_rows, _first_credits(points), strict=True):
            bot = str(r["bot"])
            b = self.bot.setdefault(bot, [0, 0, 0, 0, 0, 0, 0, 0, 0.0])
            if bot not in seen:  # a dummy filling several seats: each seat's numbers, the match once
                b[0] += 1
                seen[bot] = []
            _add(b, (0, r["hands"], r["points"], r["wins"], r["self_draws"], r["deal_ins"], r["faults"],
                     r["answers"], r["answer_seconds"]))
            self.bot_max[bot] = max(self.bot_max.get(bot, 0.0), r["max_answer_seconds"])
            seen[bot].append(r["points"])
            for kind, key in keys:
                _add(self.bot_cluster.setdefault((kind, key, bot), [0, 0, 0, 0, 0]),
                     (r["points"], r["hands"], round(RANK_SCALE * r["rank"]), 1, first))
        means = {bot: _scaled_mean(pts) for bot, pts in seen.items()}
        names = sorted(means)
        for i, a in enumerate(names):
            for other in names[i + 1:]:
                for kind, key in keys:
                    _add(self.pair_cluster.setdefault((kind, key, a, other), [0, 0, 0]),
                         (means[a] - means[other], m.hands, 1))
        self.faults.update(m.faults)
        self.hand_points.update(m.hand_points)

    def write(self, con: sqlite3.Connection) -> None:
        if not self.matches:
            return
        clusters = {kind: 0 for kind in KINDS}
        for kind, key in {(kind, key) for kind, key, _ in self.bot_cluster}:
            if con.execute("SELECT 1 FROM agg_bot_cluster WHERE kind = ? AND key = ? LIMIT 1",
                           (kind, key)).fetchone() is None:
                clusters[kind] += 1
        con.execute(
            "INSERT INTO agg_store VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "matches = matches + excluded.matches, hands = hands + excluded.hands, "
            "group_clusters = group_clusters + excluded.group_clusters, "
            "seed_clusters = seed_clusters + excluded.seed_clusters",
            (self.matches, self.hands, clusters["group"], clusters["seed"]))
        con.executemany(
            "INSERT INTO agg_bot VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (bot) DO UPDATE SET "
            "matches = matches + excluded.matches, hands = hands + excluded.hands, "
            "points = points + excluded.points, wins = wins + excluded.wins, "
            "self_draws = self_draws + excluded.self_draws, deal_ins = deal_ins + excluded.deal_ins, "
            "faults = faults + excluded.faults, answers = answers + excluded.answers, "
            "answer_seconds = answer_seconds + excluded.answer_seconds, "
            "max_answer_seconds = MAX(max_answer_seconds, excluded.max_answer_seconds)",
            [(bot, *b, self.bot_max[bot]) for bot, b in self.bot.items()])
        moments: dict[tuple[str, str], list[Any]] = {}
        for (kind, key, bot), d in self.bot_cluster.items():
            row = con.execute("SELECT y, n, r, s, f FROM agg_bot_cluster WHERE kind = ? AND key = ? AND bot = ?",
                              (kind, key, bot)).fetchone()
            y0, n0, r0, s0, f0 = tuple(row) if row is not None else (0, 0, 0, 0, 0)
            y1, n1, r1, s1, f1 = y0 + d[0], n0 + d[1], r0 + d[2], s0 + d[3], f0 + d[4]
            con.execute("INSERT OR REPLACE INTO agg_bot_cluster VALUES (?,?,?,?,?,?,?,?)",
                        (kind, key, bot, y1, n1, r1, s1, f1))
            # Points per hand count a cluster only once it has hands (as Moments.of leaves out n == 0).
            py0, py1 = (y0 if n0 else 0), (y1 if n1 else 0)
            _add(moments.setdefault((kind, bot), [0] * 15), (
                int(n1 > 0) - int(n0 > 0), py1 - py0, d[1], *_moment_deltas((py0, n0), (py1, n1)),
                int(row is None), d[2], d[3], *_moment_deltas((r0, s0), (r1, s1)),
                d[4], *_moment_deltas((f0, s0), (f1, s1))[:2]))
        con.executemany(
            "INSERT INTO agg_bot_moments VALUES (?,?, ?,?,?,?,?,?, ?,?,?,?,?,?, ?,?,?) ON CONFLICT (kind, bot) DO "
            "UPDATE SET g = g + excluded.g, sy = sy + excluded.sy, sn = sn + excluded.sn, syy = syy + excluded.syy, "
            "syn = syn + excluded.syn, snn = snn + excluded.snn, rg = rg + excluded.rg, ry = ry + excluded.ry, "
            "rn = rn + excluded.rn, ryy = ryy + excluded.ryy, ryn = ryn + excluded.ryn, rnn = rnn + excluded.rnn, "
            "fy = fy + excluded.fy, fyy = fyy + excluded.fyy, fyn = fyn + excluded.fyn",
            [(kind, bot, *d) for (kind, bot), d in moments.items()])
        pairs: dict[tuple[str, str, str], list[Any]] = {}
        for (kind, key, a, b), d in self.pair_cluster.items():
            row = con.execute("SELECT y, n FROM agg_pair_cluster WHERE kind = ? AND key = ? AND a = ? AND b = ?",
                              (kind, key, a, b)).fetchone()
            y0, n0 = tuple(row) if row is not None else (0, 0)
            y1, n1 = y0 + d[0], n0 + d[1]
            con.execute("INSERT OR REPLACE INTO agg_pair_cluster VALUES (?,?,?,?,?,?)", (kind, key, a, b, y1, n1))
            py0, py1 = (y0 if n0 else 0), (y1 if n1 else 0)
            _add(pairs.setdefault((kind, a, b), [0] * 8), (
                d[2], d[1], int(n1 > 0) - int(n0 > 0), py1 - py0, d[1], *_moment_deltas((py0, n0), (py1, n1))))
        con.executemany(
            "INSERT INTO agg_pair VALUES (?,?,?, ?,?, ?,?,?,?,?,?) ON CONFLICT (kind, a, b) DO UPDATE SET "
            "matches = matches + excluded.matches, hands = hands + excluded.hands, g = g + excluded.g, "
            "sy = sy + excluded.sy, sn = sn + excluded.sn, syy = syy + excluded.syy, syn = syn + excluded.syn, "
            "snn = snn + excluded.snn",
            [(kind, a, b, *d) for (kind, a, b), d in pairs.items()])
        con.executemany("INSERT INTO agg_faults VALUES (?,?,?) ON CONFLICT (bot, kind) DO UPDATE SET "
                        "n = n + excluded.n", [(bot, kind, n) for (bot, kind), n in self.faults.items()])
        con.executemany("INSERT INTO agg_hand_points VALUES (?,?,?) ON CONFLICT (bot, points) DO UPDATE "
                        "SET hands = hands + excluded.hands",
                        [(bot, pts, n) for (bot, pts), n in self.hand_points.items()])


def add_matches(con: sqlite3.Connection, matches: Iterable[MatchFacts]) -> int:
    """Add matches to the totals (inside the transaction that records them); returns how many."""
    batch = _Batch()
    for m in matches:
        batch.add(m)
    batch.write(con)
    return batch.matches


def clear(con: sqlite3.Connection) -> None:
    for table in TABLES:
        con.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names


_WHOLE_SEAT_COLUMNS = ("points", "hands", "wins", "self_draws", "deal_ins", "faults", "answers")
_SECONDS_SEAT_COLUMNS = ("answer_seconds", "max_answer_seconds")
SEATS = 4  # every match has four seats (dummies fill the empty ones), and so four seat rows


def _whole(value: Any) -> bool:
    return type(value) is int


def _seconds(value: Any) -> bool:
    """A number of seconds as a match records it: finite and not negative (1e999 is kept as inf by SQLite)."""
    return type(value) in (int, float) and 0 <= value < float("inf")


def facts_from_tables(con: sqlite3.Connection) -> Iterator[MatchFacts]:
    """Every recorded match, read back from the store's match tables (to build the totals of an older store, or
    again by ``mjref standings --recount``).  Every cell the totals use is checked first: a row edited by hand
    (a seat missing, a rank of inf, points of 1e308, a seed of text) is a ``ValueError`` naming the match, the
    table and the column, never a total that is silently wrong or an error of Python's own (``max() arg is an
    empty sequence``)."""
    seat_cols = ("position", "bot", "points", "rank", "hands", "wins", "self_draws", "deal_ins", "faults", "answers",
                 "answer_seconds", "max_answer_seconds")
    matches = con.execute("SELECT id, grp, seed, hands FROM matches ORDER BY idx, id")
    for mid, grp, seed, hands in matches.fetchall():
        where = f"match {str(mid)[:60]!r}"
        if not _whole(seed):
            raise ValueError(f"{where}: column 'seed' holds {seed!r:.60}, not a whole number")
        if not _whole(hands) or hands < 0:
            raise ValueError(f"{where}: column 'hands' holds {hands!r:.60}, not a whole number of 0 or more")
        seat_rows = [dict(zip(seat_cols, r, strict=True)) for r in con.execute(
            f"SELECT {', '.join(seat_cols)} FROM seats WHERE match_id = ? ORDER BY position", (mid,))]  # noqa: S608
        if len(seat_rows) != SEATS or len({r["position"] for r in seat_rows}) != SEATS:
            raise ValueError(f"{where}: it has {len(seat_rows)} seat row(s) at positions "
                             f"{[r['position'] for r in seat_rows]!r:.60}, not one for each of its {SEATS} seats")
        for r in seat_rows:  # a count edited to 1e308 (a real, kept as given in an INTEGER column) summed to inf
            seat = f"{where}, seat {r['position']!r:.20}"
            column = next((c for c in _WHOLE_SEAT_COLUMNS if not _whole(r[c])), None)
            if column is not None:
                raise ValueError(f"{seat}: column {column!r} holds {r[column]!r:.60}, not a whole number")
            column = next((c for c in _SECONDS_SEAT_COLUMNS if not _seconds(r[c])), None)
            if column is not None:
                raise ValueError(f"{seat}: column {column!r} holds {r[column]!r:.60}, not a number of seconds")
            if type(r["rank"]) not in (int, float) or not 1 <= r["rank"] <= SEATS:
                raise ValueError(f"{seat}: column 'rank' holds {r['rank']!r:.60}, not a rank from 1 to {SEATS}")
        bots = {i + 1: r["bot"] for i, r in enumerate(seat_rows)}
        hand_points = []
        for hand, *r in con.execute("SELECT hand, s1, s2, s3, s4, p1, p2, p3, p4 FROM hands WHERE match_id = ?",
                                    (mid,)):
            bad = next((i for i, v in enumerate(r) if not _whole(v)), None)
            if bad is not None:
                column = f"{'sp'[bad // SEATS]}{bad % SEATS + 1}"
                raise ValueError(f"{where}, hand {hand!r:.20}: column {column!r} holds {r[bad]!r:.60}, not a whole "
                                 "number")
            hand_points += [(bots[p], r[p - 1] - r[p + 3]) for p in (1, 2, 3, 4)]
        faults = [(str(b), str(k)) for b, k in con.execute("SELECT bot, kind FROM faults WHERE match_id = ?", (mid,))]
        yield MatchFacts(str(grp), seed, hands, seat_rows, hand_points, faults)


def rebuild(con: sqlite3.Connection) -> int:
    """The totals of every match in the store, from scratch (inside a transaction); returns the matches counted."""
    clear(con)
    n = 0
    batch: list[MatchFacts] = []
    for facts in facts_from_tables(con):
        batch.append(facts)
        if len(batch) == 4096:
            n += add_matches(con, batch)
            batch.clear()
    return n + add_matches(con, batch)


def hand_points_histogram(con: sqlite3.Connection) -> dict[str, list[tuple[int, int]]]:
    """Per bot: (points in one hand, how many hands), in order of points."""
    out: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for bot, pts, n in con.execute("SELECT bot, points, hands FROM agg_hand_points ORDER BY bot, points"):
        out[str(bot)].append((pts, int(n)))
    return dict(out)


def fault_counts(con: sqlite3.Connection) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for bot, kind, n in con.execute("SELECT bot, kind, n FROM agg_faults"):
        out[str(bot)][str(kind)] = int(n)
    return dict(out)


__all__ = ["FIRST_SCALE", "KINDS", "NUMBER_COLUMNS", "PAIR_SCALE", "RANK_SCALE", "SCHEMA", "TABLES", "MatchFacts",
           "add_matches", "clear", "facts_from_tables", "fault_counts", "hand_points_histogram", "rebuild"]
