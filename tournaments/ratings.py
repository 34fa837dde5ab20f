"""A league's ratings: openskill's Plackett-Luce model over each match's order of points, with its uncertainty.

Kept apart from :mod:`tournaments.league` (which runs matches) so that ``mjref standings`` and the league's page
read them without importing the match referee.  Why a rating beside points per hand: docs/league.md.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .config import DUMMY_PREFIX
from .stats import ClusterBy, Standings, snapshot, standings_in
from .store import StoreError, connect

RATINGS_KEY = "league_ratings"  # meta: the ratings after the last recorded match (JSON)
HISTORY_POINTS = 256  # points of a bot's rating history kept in memory (History), whatever its matches


def _model() -> Any:
    from openskill.models import PlackettLuce  # imported when ratings are computed: `mjref --help` stays light

    return PlackettLuce()


@dataclass(slots=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative rating the league ranks by: mu - 3 sigma (a bot must have shown it is good)."""
        return self.mu - 3 * self.sigma


class History:
    """One bot's rating over time, as (league match number, mu, sigma) after its matches, in bounded memory: once
    it holds ``HISTORY_POINTS`` points every other one goes and from then on only every 2nd (4th, …) of its matches
    is kept, so the points stay evenly spread over its whole life; the latest is always shown."""

    __slots__ = ("last", "points", "seen", "stride")

    def __init__(self) -> None:
        self.points: list[tuple[int, float, float]] = []
        self.stride = 1
        self.seen = 0
        self.last: tuple[int, float, float] | None = None

    def add(self, at: int, mu: float, sigma: float) -> None:
        self.last = (at, mu, sigma)
        if self.seen % self.stride == 0:
            self.points.append(self.last)
            if len(self.points) > HISTORY_POINTS:
                self.points = self.points[::2]
                self.stride *= 2
        self.seen += 1

    def series(self) -> list[tuple[int, float, float]]:
        if self.last is None or (self.points and self.points[-1] == self.last):
            return list(self.points)
        return [*self.points, self.last]

    def copy(self) -> History:
        h = History()
        h.points, h.stride, h.seen, h.last = list(self.points), self.stride, self.seen, self.last
        return h


Checkpoint = tuple[int, dict[str, tuple[Rating | None, History | None]]]


class Ratings:
    """Every entrant's Plackett-Luce rating, updated match by match in the order the store recorded them, with its
    history (:class:`History`).  The league's loop updates it; the page reads it from worker threads, under
    ``lock``."""

    def __init__(self) -> None:
        self.model = _model()
        self.by_name: dict[str, Rating] = {}
        self.history: dict[str, History] = {}
        self.rated = 0  # matches rated
        self.lock = threading.Lock()

    def get(self, name: str) -> Rating:
        r = self.by_name.get(name)
        if r is None:
            r = Rating(self.model.mu, self.model.sigma)
            if not name.startswith(f"{DUMMY_PREFIX}-"):
                self.by_name[name] = r
        return r

    def add(self, seats: Sequence[str], totals: Sequence[float]) -> None:
        """One match: four seats (bot names) and their points; the better the points, the better the place."""
        current = [self.get(n) for n in seats]
        teams = [[self.model.rating(mu=r.mu, sigma=r.sigma)] for r in current]
        new = self.model.rate(teams, scores=[float(t) for t in totals])
        seen: set[str] = set()
        with self.lock:
            self.rated += 1
            for name, team in zip(seats, new, strict=True):
                if name.startswith(f"{DUMMY_PREFIX}-") or name in seen:
                    continue  # a dummy is not rated; a bot in two seats (never, but a store could say so) once
                seen.add(name)
                r = self.by_name[name]
                r.mu, r.sigma, r.matches = float(team[0].mu), float(team[0].sigma), r.matches + 1
                self.history.setdefault(name, History()).add(self.rated, r.mu, r.sigma)

    def checkpoint(self, names: Iterable[str]) -> Checkpoint:
        """What :meth:`add` of a match among ``names`` changes, to :meth:`rollback` to if it is not recorded."""
        return self.rated, {n: (replace(r) if (r := self.by_name.get(n)) else None,
                                h.copy() if (h := self.history.get(n)) else None) for n in set(names)}

    def rollback(self, checkpoint: Checkpoint) -> None:
        rated, saved = checkpoint
        with self.lock:
            self.rated = rated
            for n, (r, h) in saved.items():
                if r is None:
                    self.by_name.pop(n, None)
                else:
                    self.by_name[n] = r
                if h is None:
                    self.history.pop(n, None)
                else:
                    self.history[n] = h

    def series(self, name: str) -> list[tuple[int, float, float]]:
        """``name``'s rating after its matches, thinned (:class:`History`); empty for a bot not yet rated."""
        with self.lock:
            h = self.history.get(name)
            return h.series() if h is not None else []

    def trends(self, points: int) -> dict[str, list[float]]:
        """Every bot's mu over time in at most ``points`` values, evenly picked from its history (the page's
        small charts)."""
        with self.lock:
            out = {}
            for name, h in self.history.items():
                s = h.series()
                if len(s) > points:
                    s = [s[round(i * (len(s) - 1) / (points - 1))] for i in range(points)]
                out[name] = [round(mu, 3) for _, mu, _ in s]
            return out

    def to_json(self) -> dict[str, Any]:
        return {"rated": self.rated,
                "bots": {n: [r.mu, r.sigma, r.matches] for n, r in sorted(self.by_name.items())}}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_store(cls, con: sqlite3.Connection) -> Ratings:
        """Recompute every rating from the store's matches, in the order they were recorded."""
        ratings = cls()
        for row in con.execute("SELECT seat1, seat2, seat3, seat4, total1, total2, total3, total4 FROM matches "
                               "ORDER BY rowid"):
            ratings.add([str(x) for x in row[:4]], [float(x) for x in row[4:]])
        return ratings


def stored_ratings(con: sqlite3.Connection) -> dict[str, Rating] | None:
    """The ratings a league stored with its last match (None: not a league's store, or none yet)."""
    row = con.execute("SELECT value FROM meta WHERE key = ?", (RATINGS_KEY,)).fetchone()
    if row is None:
        return None
    try:
        data = json.loads(row[0])
        return {str(n): Rating(float(v[0]), float(v[1]), int(v[2])) for n, v in data["bots"].items()}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise StoreError(f"a damaged league store: its stored ratings cannot be read ({exc})") from None


def read_ratings(store_path: Path) -> dict[str, Rating] | None:
    """``stored_ratings`` of a store file (read-only), for standings and the page."""
    with snapshot(Path(store_path)) as con:
        return _stored_ratings_of(con, Path(store_path))


def _stored_ratings_of(con: sqlite3.Connection, store_path: Path) -> dict[str, Rating] | None:
    try:
        return stored_ratings(con)
    except StoreError as exc:
        raise StoreError(f"{store_path}: {exc}") from None


def league_order(names: Iterable[str], ratings: Mapping[str, Rating]) -> list[str]:
    """Names best first: by the conservative rating (mu - 3 sigma), unrated last, then by name."""
    return sorted(names, key=lambda n: (-(ratings[n].ordinal) if n in ratings else math.inf, n))




def league_standings(store_path: Path, *, cluster_by: ClusterBy = "group",
                     head_to_head: bool = True) -> tuple[Standings, dict[str, Rating] | None]:
    """A store's standings and, for a league's store, its stored ratings, with the bots in the league's order: both
    read in one transaction (a league recording a match meanwhile cannot pair one state's standings with another's
    ratings)."""
    with snapshot(Path(store_path)) as con:
        return league_standings_in(con, Path(store_path), cluster_by=cluster_by, head_to_head=head_to_head)


def league_standings_in(con: sqlite3.Connection, store_path: Path, *, cluster_by: ClusterBy = "group",
                        head_to_head: bool = True) -> tuple[Standings, dict[str, Rating] | None]:
    """:func:`league_standings` read through ``con``, in the caller's transaction (``tournaments.store.recount``'s:
    ``mjref standings --recount`` shows the totals it recounted, whatever is written after)."""
    standings = standings_in(con, store_path, cluster_by=cluster_by, head_to_head=head_to_head)
    ratings = _stored_ratings_of(con, store_path)
    if ratings is None:
        return standings, None
    order = {n: i for i, n in enumerate(league_order([b.name for b in standings.bots], ratings))}
    return replace(standings, bots=sorted(standings.bots, key=lambda b: order[b.name])), ratings


class LeagueReader:
    """What the league's page shows, read from its store: the standings as JSON (computed again only when a match
    was recorded since: the store's last rowid is the key) and the latest matches."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = Path(store_path)
        self._cached: tuple[int, dict[str, Any]] | None = None
        self._pairs: tuple[int, list[dict[str, Any]]] | None = None

    def _last(self) -> int:
        con = connect(self.store_path, readonly=True)
        try:
            return int(con.execute("SELECT COALESCE(MAX(rowid), 0) FROM matches").fetchone()[0])
        finally:
            con.close()

    def standings(self) -> dict[str, Any]:
        from .stats import to_json

        last = self._last()
        if self._cached is not None and self._cached[0] == last:
            return self._cached[1]
        # no head-to-head: the page shows none, and 100 bots have 4,950 pairs, most of the time standings take
        standings, ratings = league_standings(self.store_path, head_to_head=False)
        data = to_json(standings, ratings if ratings is not None else {})
        data.pop("head_to_head", None)
        self._cached = (last, data)
        return data

    def head_to_head(self, name: str) -> list[dict[str, Any]]:
        """``name``'s points per hand minus each opponent's, over the matches where both sat, with its clustered
        interval (as ``mjref standings``), best opponent for ``name`` first.  Every pair is computed again only when
        a match was recorded since."""
        from .stats import compute_standings, to_json

        last = self._last()
        pairs = self._pairs
        if pairs is None or pairs[0] != last:
            pairs = self._pairs = (last, to_json(compute_standings(self.store_path))["head_to_head"])
        out = [{"opponent": h["b"], "matches": h["matches"], "hands": h["hands"], "mean_diff": h["mean_diff"],
                "ci95": h["ci95"]}
               for h in pairs[1] if h["a"] == name and h["b"] != name]  # each pair is there both ways round
        return sorted(out, key=lambda h: (-(h["mean_diff"] if h["mean_diff"] is not None else -math.inf),
                                          h["opponent"]))

    def _per_table(self, con: Any) -> int:
        row = con.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        try:
            identity = json.loads(row[0]) if row else {}
            return int(identity.get("seatings", 4)) if identity.get("duplicate") else 1
        except (ValueError, TypeError, AttributeError):
            return 1

    def viewer(self, match_id: str) -> str | None:
        """The viewer page of a recorded match whose whole table is recorded (None: no such match, or its table's
        other seatings, on the same walls, are still to be played), from its log."""
        from referee.errors import MjrefError
        from referee.viewer import build_match, render_viewer

        from .schedule import MATCH_ID

        if not MATCH_ID.fullmatch(match_id):
            return None
        con = connect(self.store_path, readonly=True)
        try:
            row = con.execute("SELECT log, grp FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None or not row[0]:
                return None
            done = int(con.execute("SELECT COUNT(*) FROM matches WHERE grp = ?", (row[1],)).fetchone()[0])
            if done < self._per_table(con):
                return None
            log = Path(str(row[0]))
        finally:
            con.close()
        try:
            return render_viewer(build_match(log))
        except (MjrefError, OSError):
            return None

    def matches(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` latest recorded matches, newest first: id, seats, totals, faults, when finished."""
        con = connect(self.store_path, readonly=True)
        try:
            rows = con.execute(
                "SELECT id, seat1, seat2, seat3, seat4, total1, total2, total3, total4, finished, "
                "(SELECT COUNT(*) FROM faults WHERE match_id = m.id), "
                "(SELECT COUNT(*) FROM matches AS o WHERE o.grp = m.grp), log IS NOT NULL "
                "FROM matches AS m ORDER BY rowid DESC LIMIT ?", (limit,)).fetchall()
            per_table = self._per_table(con)
        finally:
            con.close()
        return [{"id": str(r[0]), "seats": [str(x) for x in r[1:5]], "totals": [int(x) for x in r[5:9]],
                 "finished": str(r[9]), "faults": int(r[10]), "viewer": bool(r[12]) and int(r[11]) >= per_table}
                for r in rows]


__all__ = ["HISTORY_POINTS", "RATINGS_KEY", "History", "LeagueReader", "Rating", "Ratings", "league_order",
           "league_standings", "league_standings_in", "read_ratings", "stored_ratings"]
